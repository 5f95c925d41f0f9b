import type {
  OwnerAnswer,
  OwnerErrorBody,
  OwnerMethod,
  OwnerPath,
  OwnerRequest,
} from "../src/gateway/owner/operations.js";
import type { ErrorCode } from "../src/http/error-codes.js";

/**
 * The owner API from the browser (D-260): paths, bodies, queries and answers typed by the routes' own zod schemas
 * (type-only imports: the bundle ships no zod and no server code). The session cookie rides along, every mutation
 * echoes the CSRF token; a failure is an `OwnerApiError` with the answer's code and request id.
 */

export type { OwnerAnswer };

let csrfToken: string | null = null;
let onSignedOut: () => void = () => {};

/** A refused call: the error body's message, closed `code` and `requestId` (docs/owner-api.md, "Errors"). */
export class OwnerApiError extends Error {
  readonly code: ErrorCode;
  readonly requestId: string;

  constructor(
    readonly status: number,
    readonly body: Partial<OwnerErrorBody>,
    requestId: string | null,
  ) {
    super(typeof body.error === "string" ? body.error : `request failed (${status})`);
    this.code = body.code ?? "internal";
    this.requestId = body.requestId ?? requestId ?? "unknown";
  }
}

/** What a page shows of a failure: the message and, for a refused call, the request id an owner can quote. */
export function failureText(error: unknown, prefix = ""): string {
  if (error instanceof OwnerApiError) return `${prefix}${error.message} (request ${error.requestId})`;
  return error instanceof Error ? error.message : String(error);
}

export function setCsrf(token: string | null): void {
  csrfToken = token;
}

export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/** Query string from the defined values only. */
export function query(params: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** `/keys/{keyId}` with `{ keyId }` filled in, each value encoded. */
function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
}

interface AnyRequest {
  params?: Record<string, string>;
  body?: unknown;
  query?: Record<string, unknown>;
}

async function call(method: OwnerMethod, path: string, request: AnyRequest = {}): Promise<unknown> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (request.body !== undefined) headers["content-type"] = "application/json";
  if (method !== "get" && csrfToken) headers["x-csrf-token"] = csrfToken;
  const url = `/owner/v1${fillPath(path, request.params)}${request.query ? query(request.query) : ""}`;
  const res = await fetch(url, {
    method: method.toUpperCase(),
    headers,
    credentials: "same-origin",
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  const text = await res.text();
  let parsed: unknown = {};
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    // a proxy's HTML page: the status and the request id header are all there is
  }
  if (res.status === 401 && path !== "/sessions") onSignedOut();
  if (!res.ok) {
    const body = typeof parsed === "object" && parsed !== null ? (parsed as Partial<OwnerErrorBody>) : {};
    throw new OwnerApiError(res.status, body, res.headers.get("x-request-id"));
  }
  return parsed;
}

/** A call's arguments: required when the path has parameters or the operation a body. */
type Args<M extends OwnerMethod, P extends OwnerPath<M>> = P extends `${string}{${string}`
  ? [request: OwnerRequest<M, P>]
  : OwnerRequest<M, P> extends { body: unknown }
    ? [request: OwnerRequest<M, P>]
    : [request?: OwnerRequest<M, P>];

type Caller<M extends OwnerMethod> = <P extends OwnerPath<M>>(
  path: P,
  ...args: Args<M, P>
) => Promise<OwnerAnswer<M, P>>;

function caller<M extends OwnerMethod>(method: M): Caller<M> {
  return (path, ...args) =>
    call(method, path, args[0] as AnyRequest | undefined) as Promise<OwnerAnswer<M, typeof path>>;
}

export const api: {
  get: Caller<"get">;
  post: Caller<"post">;
  put: Caller<"put">;
  patch: Caller<"patch">;
  delete: Caller<"delete">;
} = {
  get: caller("get"),
  post: caller("post"),
  put: caller("put"),
  patch: caller("patch"),
  delete: caller("delete"),
};
