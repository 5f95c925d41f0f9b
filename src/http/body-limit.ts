import type { MiddlewareHandler } from "hono";
import { type BodyLimits, readRequestBody, tooLarge } from "./json-body.js";
import { MAX_JSON_DEPTH } from "./json-depth.js";
import { requestHeader } from "./node-headers.js";

/**
 * The owner API's bodies are small documents (names, ids, a filter, up to 1,000 submission ids): 64 KiB, and shallow.
 * Every owner route takes this unless it declares otherwise where it is registered (docs/decisions.md, "Bounded input").
 */
export const OWNER_BODY: BodyLimits = { maxBytes: 64 * 1024, maxDepth: 16 };

/**
 * Owner routes that carry a vendor payload (a preview) or golden samples (a version, a draft's test): a payload as large
 * and as deep as intake takes one (§8: 1 MB), with an expression (100,000 characters) and the envelope around it; a
 * sample's payload sits four levels down (`samples[i].expect.body`).
 */
export const PAYLOAD_BODY: BodyLimits = { maxBytes: 2_000_000, maxDepth: MAX_JSON_DEPTH + 4 };

/** The largest body any route of the gateway takes: a larger declared length is refused before routing. */
export const MAX_ROUTE_BODY_BYTES = PAYLOAD_BODY.maxBytes;

/**
 * 413 for a declared length over `maxBytes`, before the request reaches a route; a body without a declared length is
 * left to the route, which reads it within its own limit. Cheap enough to run on every request.
 */
export function declaredBodyLimit(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    if (Number(requestHeader(c, "content-length") ?? 0) > maxBytes) throw tooLarge(maxBytes);
    await next();
  };
}

const TEXT = new TextDecoder();

/**
 * A route that does not expect a JSON body, or reads one its own way (bull-board): whatever body comes is read now,
 * within `maxBytes` (413 past it, on the declared length or while reading), and kept for whoever reads it later.
 */
export function bodyLimit(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const length = requestHeader(c, "content-length");
    if (Number(length ?? 0) > maxBytes) throw tooLarge(maxBytes);
    const chunked = length === undefined && requestHeader(c, "transfer-encoding") !== undefined;
    if (chunked || Number(length) > 0) {
      const raw = await readRequestBody(c, maxBytes);
      const cache = c.req.bodyCache as Record<string, unknown>;
      cache.text = Promise.resolve(TEXT.decode(raw));
      cache.arrayBuffer = Promise.resolve(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    }
    await next();
  };
}
