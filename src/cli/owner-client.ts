import { z } from "zod";
import type { OwnerAnswer, OwnerErrorBody, OwnerMethod, OwnerPath, OwnerRequest } from "../gateway/owner/operations.js";

/**
 * The owner API from a command (D-309): a running gateway's `/owner/v1`, with an owner's bearer token, typed by the
 * routes' own schemas (operations.ts, D-260). A command changes what the console would, under the same roles and
 * tenant scope, and needs neither the database nor the master key.
 */
export interface OwnerClient {
  call<M extends OwnerMethod, P extends OwnerPath<M>>(
    method: M,
    path: P,
    request?: OwnerRequest<M, P>,
  ): Promise<OwnerAnswer<M, P>>;
}

/** A refused call: the owner API's error body (its closed code and the request id to quote). */
export class OwnerCallError extends Error {
  constructor(
    readonly status: number,
    readonly body: Partial<OwnerErrorBody>,
  ) {
    super(`${body.error ?? `HTTP ${status}`} (${body.code ?? "unknown"}, request ${body.requestId ?? "unknown"})`);
  }
}

/** Where the gateway is and whose token to use, read once when the command starts. */
export const ownerClientEnv = z.object({
  /** The gateway's base URL (its PUBLIC_URL); default the one `serve` listens on by default. */
  PARTNER_GATEWAY_URL: z.url().default("http://127.0.0.1:8080"),
  /** An owner's bearer token (`pgt_…`, POST /owner/v1/tokens): kept out of the command line and its history. */
  OWNER_TOKEN: z
    .string({ error: "required: an owner's bearer token (pgt_…, made with POST /owner/v1/tokens)" })
    .regex(/^pgt_/, "an owner's bearer token (pgt_…, made with POST /owner/v1/tokens)"),
});

export function ownerClient(env: z.output<typeof ownerClientEnv>): OwnerClient {
  return {
    async call(method, path, request) {
      const params = (request?.params ?? {}) as Record<string, string>;
      const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
      const res = await fetch(new URL(`/owner/v1${filled}`, env.PARTNER_GATEWAY_URL), {
        method: method.toUpperCase(),
        headers: { authorization: `Bearer ${env.OWNER_TOKEN}`, "content-type": "application/json" },
        ...(request?.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      });
      const text = await res.text();
      const parsed: unknown = text ? JSON.parse(text) : {};
      if (!res.ok) throw new OwnerCallError(res.status, parsed as Partial<OwnerErrorBody>);
      return parsed as OwnerAnswer<typeof method, typeof path>;
    },
  };
}
