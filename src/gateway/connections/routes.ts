import type { IncomingMessage } from "node:http";
import { readIncoming, readRequestBody } from "../../http/json-body.js";
import { nodeHeader, requestHeader, setResponseHeader } from "../../http/node-headers.js";
import type { GatewayApp } from "../app-env.js";
import type { GatewayContext } from "../context.js";
import { IntakeLimiter } from "../intake/intake-limiter.js";
import { acceptHookPayload } from "./accept-hook.js";
import { answerHook, type HookServices } from "./answer-hook.js";
import type { HookHttpRequest } from "./hook-request.js";
import { maskedHookToken } from "./hook-token.js";
import { ProofFailures } from "./proof-failures.js";
import { ConnectionResolver } from "./resolved-connection.js";

export const HOOK_PREFIX = "/hooks/";

/** A hook URL's path as logs and metrics show it: its token masked to its first 14 characters (§5.9's rule). */
export function maskHookPath(path: string): string {
  if (!path.startsWith(HOOK_PREFIX)) return path;
  return `${HOOK_PREFIX}${maskedHookToken(path.slice(HOOK_PREFIX.length))}`;
}

/**
 * The hook URLs (docs/connections.md): `/hooks/<token>`, any method (POST for a vendor's deliveries, GET for its URL
 * verification). Under Node a Node route (src/http/node-routes.ts), answered without Hono's per-request objects, like
 * intake's; the Hono route answers the same wherever the app runs without Node's server. Both run answerHook().
 * Returns what must be flushed when the app closes (the refused proofs' counts).
 */
export function hookRoutes(app: GatewayApp, ctx: GatewayContext): { close(): Promise<void> } {
  const proofFailures = new ProofFailures(ctx);
  const nodeRequest = nodeRequestOf(ctx);
  const hooks: HookServices = {
    limiter: new IntakeLimiter(ctx.settings.intakeLimit.ratePerSecond, ctx.settings.intakeLimit.burst),
    resolver: new ConnectionResolver(ctx),
    proofFailures,
    accept: (connection, payload, span) => acceptHookPayload(ctx, connection, payload, span),
  };
  app.nodeRoutes.add({
    method: "*",
    path: "/hooks/:token",
    prefix: HOOK_PREFIX,
    handle: async (incoming) => {
      const answer = await answerHook({ ctx, hooks, request: nodeRequest(incoming) });
      return {
        status: answer.status,
        text: { body: answer.body, contentType: answer.contentType },
        ...(answer.headers ? { headers: answer.headers } : {}),
      };
    },
  });
  app.all("/hooks/:token", async (c) => {
    const url = new URL(c.req.url);
    const answer = await answerHook({
      ctx,
      hooks,
      request: {
        method: c.req.method,
        token: c.req.param("token"),
        url: c.req.url,
        headers: Object.fromEntries(c.req.raw.headers),
        query: queryOf(url.searchParams),
        header: (name) => requestHeader(c, name),
        read: (maxBytes) => readRequestBody(c, maxBytes),
      },
    });
    for (const [name, value] of Object.entries(answer.headers ?? {})) setResponseHeader(c, name, value);
    return c.body(answer.body, answer.status as 200, { "content-type": answer.contentType });
  });
  return { close: () => proofFailures.close() };
}

/** A hook path with no query, dot segment or escape: the URL the vendor called is the public URL's origin and it. */
const PLAIN_HOOK_PATH = /^\/hooks\/[A-Za-z0-9_-]*$/;

/**
 * The Node request as answerHook() reads it. What the vendor called is the public URL's scheme and host (a proof may
 * sign them) and the path and query as sent; a plain hook path (all of them, from a vendor) is joined to the public
 * URL's origin as `new URL()` would join it, without parsing either per request (D-365), anything else is parsed.
 * Methods of one object rather than arrow functions, as everything made per request (D-382).
 */
function nodeRequestOf(ctx: GatewayContext): (incoming: IncomingMessage) => HookHttpRequest {
  // The public URL parsed once, again only when the setting changes (a test gateway learns its port after its routes).
  let publicUrl = "";
  let base = new URL("http://localhost");
  let origin = "";
  return (incoming) => {
    if (ctx.settings.publicUrl !== publicUrl) {
      publicUrl = ctx.settings.publicUrl;
      base = new URL(publicUrl);
      // The origin as new URL() writes it (with any user info of the public URL), without the trailing slash.
      origin = new URL("/", base).toString().slice(0, -1);
    }
    const path = incoming.url ?? "/";
    let url: string;
    let pathname: string;
    let query: Record<string, string | string[]>;
    if (PLAIN_HOOK_PATH.test(path)) {
      url = `${origin}${path}`;
      pathname = path;
      query = {};
    } else {
      const parsed = new URL(path, base);
      url = parsed.toString();
      pathname = parsed.pathname;
      query = queryOf(parsed.searchParams);
    }
    return {
      method: incoming.method ?? "GET",
      token: pathname.slice(HOOK_PREFIX.length),
      url,
      headers: incoming.headers,
      query,
      header(name) {
        return nodeHeader(incoming, name);
      },
      read(maxBytes) {
        return readIncoming(incoming, maxBytes);
      },
    };
  };
}

/** Query parameters by name; a name given twice keeps both (a proof refuses the ambiguity). */
function queryOf(params: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}
