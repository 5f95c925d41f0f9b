import type { IncomingMessage } from "node:http";
import type { Context } from "hono";

/**
 * A request header, by its lower-case name. Under Node it is read from the IncomingMessage's own header object:
 * Hono's `c.req.header()` makes @hono/node-server build web Headers of every header of the request first, a few
 * microseconds per request on the intake path. Elsewhere (`app.request()` in tests, other runtimes) it is Hono's.
 * Repeated headers read as Node joins them (with ", "), except those Node keeps once (content-type, authorization…).
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const env: unknown = c.env;
  if (env && typeof env === "object" && "incoming" in env) {
    const value = (env.incoming as IncomingMessage | undefined)?.headers[name];
    if (value !== undefined) return Array.isArray(value) ? value.join(", ") : value;
    if (env.incoming) return undefined;
  }
  return c.req.header(name);
}
