import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "./errors.js";
import { MAX_JSON_DEPTH, nestsDeeper } from "./json-depth.js";
import { nodeIncoming, requestHeader } from "./node-headers.js";

/** §8: request bodies are limited to 1 MB. */
export const MAX_BODY_BYTES = 1_000_000;

export interface JsonBodyVariables {
  /** The exact bytes received, for canonical comparison and signatures. */
  rawBody: Uint8Array;
  /** The parsed JSON value. */
  body: unknown;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
/** Stateless between calls (no `stream` option), so one serves every request. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** What a route takes as its body: at most `maxBytes`, nested at most `maxDepth` deep. */
export interface BodyLimits {
  maxBytes: number;
  maxDepth: number;
}

/**
 * Reads a JSON request body: 413 over the limit (checked on the declared length and again while reading, so a
 * chunked body cannot slip past), 415 unless the content type is JSON, 400 when it nests too deeply or does not parse.
 */
export function jsonBody(options: Partial<BodyLimits> = {}): MiddlewareHandler<{ Variables: JsonBodyVariables }> {
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  return async (c, next) => {
    const { raw, text, body } = await readJson(c, maxBytes, maxDepth);
    // Route validators read the body again through Hono's cache rather than the consumed stream.
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
    c.set("rawBody", raw);
    c.set("body", body);
    await next();
  };
}

/** What `jsonBody()` does, for a handler that reads the body itself: the bytes, their text and the parsed value. */
export function readJson(
  c: Context,
  maxBytes = MAX_BODY_BYTES,
  maxDepth = MAX_JSON_DEPTH,
): Promise<{ raw: Uint8Array; text: string; body: unknown }> {
  const source: BodySource = { header: (name) => requestHeader(c, name), read: (max) => readRequestBody(c, max) };
  return readJsonFrom(source, maxBytes, maxDepth);
}

/** A request as readJsonFrom() needs it: its headers, and a reader of its body (413 past `maxBytes`). */
export interface BodySource {
  header(name: string): string | undefined;
  read(maxBytes: number): Promise<Uint8Array>;
}

/**
 * What readJson() does, for any source of a request: the bytes, their text and the parsed value. The nesting is
 * checked on the bytes before they are parsed, in one pass (json-depth.ts), so no walk over the parsed value meets a
 * payload deeper than `maxDepth`.
 */
export async function readJsonFrom(
  source: BodySource,
  maxBytes = MAX_BODY_BYTES,
  maxDepth = MAX_JSON_DEPTH,
): Promise<{ raw: Uint8Array; text: string; body: unknown }> {
  const declared = Number(source.header("content-length") ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const type = source.header("content-type") ?? "";
  if (!JSON_TYPE.test(type)) {
    throw new ApiError("unsupported_media_type", "content-type must be application/json");
  }
  const raw = await source.read(maxBytes);
  if (nestsDeeper(raw, maxDepth)) throw tooDeep(maxDepth);
  try {
    const text = UTF8.decode(raw);
    return { raw, text, body: JSON.parse(text) };
  } catch {
    throw new ApiError("bad_request", "request body is not valid JSON");
  }
}

export function tooLarge(maxBytes: number): ApiError {
  return new ApiError("payload_too_large", `request body exceeds ${maxBytes} bytes`);
}

/** 400 naming the nesting limit (docs/decisions.md, "Bounded input"). */
export function tooDeep(maxDepth: number): ApiError {
  return new ApiError("bad_request", `request body nests arrays and objects deeper than ${maxDepth} levels`, {
    details: { maxDepth },
  });
}

/**
 * The request's body as received, at most `maxBytes` (413 past that). Under Node it is read straight from the socket:
 * @hono/node-server would otherwise build a web Request and ReadableStream for it, a third of the CPU of an intake
 * request.
 */
export async function readRequestBody(c: Context, maxBytes = MAX_BODY_BYTES): Promise<Uint8Array> {
  const incoming = nodeIncoming(c);
  // Untouched only: once something has read from it, the body belongs to that reader.
  return incoming && !incoming.readableDidRead && !incoming.readableEnded
    ? readIncoming(incoming, maxBytes)
    : readBody(c.req.raw, maxBytes);
}

/** A Node request's body as received, at most `maxBytes` (413 past that, on the declared length or while reading). */
export function readIncoming(incoming: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = Number(incoming.headers["content-length"] ?? Number.NaN);
  if (declared > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Methods of one object rather than arrow functions, as everything made per request (D-382).
    const on = {
      data(chunk: Buffer) {
        size += chunk.byteLength;
        if (size > maxBytes) {
          on.off();
          reject(tooLarge(maxBytes));
          discardRest(incoming);
          return;
        }
        chunks.push(chunk);
      },
      end() {
        on.off();
        resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
      },
      // The client's doing, not the gateway's (a reset, a close mid-body): a 400 on the request's log line, which no
      // one is left to read.
      error(error: Error) {
        on.off();
        reject(new ApiError("bad_request", "the client's connection failed before the body ended", { cause: error }));
      },
      close() {
        on.off();
        reject(new ApiError("bad_request", "the client closed the connection before the body ended"));
      },
      off() {
        incoming.off("data", on.data).off("end", on.end).off("error", on.error).off("close", on.close);
      },
    };
    incoming.on("data", on.data).on("end", on.end).on("error", on.error).on("close", on.close);
  });
}

/** How much of an oversized body is read and dropped, and for how long, before the connection is cut instead. */
const DISCARD_BYTES = 8 * MAX_BODY_BYTES;
const DISCARD_MS = 1_000;

/**
 * Past the limit the rest of the body is read and dropped, so the client, still sending, reads the 413 rather than a
 * reset (closing a socket with unread input makes the kernel answer with RST). A client that keeps sending past a
 * bound is cut off.
 */
function discardRest(incoming: IncomingMessage): void {
  let discarded = 0;
  const cut = () => {
    incoming.off("data", onData);
    incoming.socket?.destroy();
  };
  const timer = setTimeout(cut, DISCARD_MS);
  timer.unref();
  const onData = (chunk: Buffer) => {
    discarded += chunk.byteLength;
    if (discarded > DISCARD_BYTES) cut();
  };
  incoming.on("data", onData);
  incoming.once("end", () => {
    clearTimeout(timer);
    incoming.off("data", onData);
  });
  incoming.resume();
}

/** The body of a web Request as received, at most `maxBytes`: 413 past that, on the declared length or while reading. */
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
