import type { MiddlewareHandler } from "hono";
import { ApiError } from "./errors.js";

/** §8: request bodies are limited to 1 MB. */
export const MAX_BODY_BYTES = 1_000_000;

export interface JsonBodyVariables {
  /** The exact bytes received, for canonical comparison and signatures. */
  rawBody: Uint8Array;
  /** The parsed JSON value. */
  body: unknown;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Reads a JSON request body: 413 over the limit (checked on the declared length and again while reading, so a
 * chunked body cannot slip past), 415 unless the content type is JSON, 400 when it does not parse.
 */
export function jsonBody(options: { maxBytes?: number } = {}): MiddlewareHandler<{ Variables: JsonBodyVariables }> {
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
  return async (c, next) => {
    const declared = Number(c.req.header("content-length") ?? Number.NaN);
    if (declared > maxBytes) throw tooLarge(maxBytes);
    const type = c.req.header("content-type") ?? "";
    if (!JSON_TYPE.test(type)) {
      throw new ApiError("unsupported_media_type", "content-type must be application/json");
    }
    const raw = await readBody(c.req.raw, maxBytes);
    let body: unknown;
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
      body = JSON.parse(text);
    } catch {
      throw new ApiError("bad_request", "request body is not valid JSON");
    }
    // Route validators read the body again through Hono's cache rather than the consumed stream.
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
    c.set("rawBody", raw);
    c.set("body", body);
    await next();
  };
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError("payload_too_large", `request body exceeds ${maxBytes} bytes`);
}

/** The body as received, at most `maxBytes`: 413 past that, on the declared length or while reading. */
export async function readBody(request: Request, maxBytes = MAX_BODY_BYTES): Promise<Uint8Array> {
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
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
