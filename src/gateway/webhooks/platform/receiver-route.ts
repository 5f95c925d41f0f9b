import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../http/app.js";
import { ApiError } from "../../../http/errors.js";
import { MAX_BODY_BYTES } from "../../../http/json-body.js";
import type { GatewayContext } from "../../context.js";
import { receivePlatformDelivery } from "./receive-platform-delivery.js";

/**
 * `POST /webhooks/platform/{companyId}`: the endpoint a company's platform subscription points at. The body is read
 * as bytes and never parsed before the signature is checked (§6.3.2).
 */
export function platformReceiverRoute<E extends AppEnv>(app: OpenAPIHono<E>, ctx: GatewayContext): void {
  app.post("/webhooks/platform/:companyId", async (c) => {
    const rawBody = await readRaw(c.req.raw, MAX_BODY_BYTES);
    const answer = await receivePlatformDelivery({
      ctx,
      companyId: c.req.param("companyId"),
      headers: c.req.raw.headers,
      rawBody,
    });
    return c.json(answer.body, answer.status);
  });
}

/** The body as received, at most `maxBytes` (413 past that, on the declared length or while reading). */
async function readRaw(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError("payload_too_large", `request body exceeds ${maxBytes} bytes`);
}
