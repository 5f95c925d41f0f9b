import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "hono";

/**
 * A request header, by its lower-case name. Under Node it is read from the IncomingMessage's own header object:
 * Hono's `c.req.header()` makes @hono/node-server build web Headers of every header of the request first, a few
 * microseconds per request on the intake path. Elsewhere (`app.request()` in tests, other runtimes) it is Hono's.
 * Repeated headers read as Node joins them (with ", "), except those Node keeps once (content-type, authorization…).
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = nodeIncoming(c);
  return incoming ? nodeHeader(incoming, name) : c.req.header(name);
}

/** A header of a Node request, by its lower-case name, as requestHeader() reads it. */
export function nodeHeader(incoming: IncomingMessage, name: string): string | undefined {
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** The Node request behind the context (@hono/node-server passes it as `env.incoming`), if there is one. */
export function nodeIncoming(c: Context): IncomingMessage | undefined {
  const env: unknown = c.env;
  if (!env || typeof env !== "object" || !("incoming" in env)) return undefined;
  return (env.incoming as IncomingMessage | undefined) ?? undefined;
}

/**
 * Sets a response header. Under Node it goes on the ServerResponse itself, which merges it into whatever response the
 * handler returns (a header the response sets wins): Hono's `c.header()` builds web Headers for it, and a handler's
 * own Response object never has to be read back. Elsewhere it is Hono's `c.header()`.
 */
export function setResponseHeader(c: Context, name: string, value: string): void {
  const outgoing = nodeOutgoing(c);
  if (outgoing) outgoing.setHeader(name, value);
  else c.header(name, value);
}

/** The Node response of the request, while its headers can still be set. */
export function nodeOutgoing(c: Context): ServerResponse | undefined {
  const env: unknown = c.env;
  if (!env || typeof env !== "object" || !("outgoing" in env)) return undefined;
  const outgoing = env.outgoing as ServerResponse | undefined;
  return outgoing && typeof outgoing.setHeader === "function" && !outgoing.headersSent ? outgoing : undefined;
}
