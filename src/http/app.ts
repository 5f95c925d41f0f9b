import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, Env as HonoEnv } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";
import type { AppOptions } from "./app-options.js";
import { ApiError, codedErrorBody, errorAnswer } from "./errors.js";
import { nodeOutgoing, requestHeader } from "./node-headers.js";
import { NodeRoutes } from "./node-routes.js";
import { requestIdFrom } from "./request-id.js";
import { RequestLog } from "./request-line.js";

/** Variables every app sets on the context; sub-apps add their own. */
export interface BaseVariables {
  requestId: string;
  /** First 14 characters of the caller's key (§5.9), set by auth middleware for the request log line. */
  keyPrefix?: string;
  /** The error behind a 5xx, logged once on the request line. */
  failure?: unknown;
}

export type AppEnv<V extends object = object> = { Variables: BaseVariables & V };

/** `email: Invalid email address` — §7: the 400 message names the offending field. */
export function validationError(error: ZodError, prefix: (string | number)[] = []): ApiError {
  const issue = error.issues[0];
  const path = [...prefix, ...(issue?.path ?? [])].map(String);
  const field = path.join(".");
  const message = issue ? (field ? `${field}: ${issue.message}` : issue.message) : "invalid request";
  return new ApiError("bad_request", message, { details: field ? { field } : {} });
}

/**
 * The one app factory (unkey's `newApp`): request id, one log line per request, metrics, the zod error hook and the
 * error contract of spec §7. Sandbox and gateway both start from here.
 */
/** An app made by newApp(): Hono's, with the Node routes listen() serves ahead of it (node-routes.ts). */
export type App<V extends object = object> = OpenAPIHono<AppEnv<V>> & { readonly nodeRoutes: NodeRoutes };

export function newApp<V extends object = object>(options: AppOptions): App<V> {
  const requestLog = new RequestLog(options);
  const app = new OpenAPIHono<AppEnv<V>>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target === "json" ? [] : [result.target]);
    },
  });

  // The shared middleware needs only the base variables; a sub-app's own variables are opaque here.
  const base = app as unknown as OpenAPIHono<AppEnv>;
  base.use(async (c, next) => {
    const started = performance.now();
    const requestId = requestIdFrom(requestHeader(c, "x-request-id"));
    c.set("requestId", requestId);
    const common = { "x-request-id": requestId, ...options.responseHeaders };
    const outgoing = nodeOutgoing(c);
    if (outgoing) {
      // Under Node they go on the socket's response itself: node merges them into whatever the handler's response
      // writes, and the handler's Response object is never touched (reading its headers afterwards made
      // @hono/node-server build web Headers for every response).
      for (const [name, value] of Object.entries(common)) outgoing.setHeader(name, value);
      await next();
    } else {
      // Set before the handler runs, they go into the response it builds; a handler that returned its own Response
      // object did not get them, so they are added after.
      for (const [name, value] of Object.entries(common)) c.header(name, value);
      await next();
      for (const [name, value] of Object.entries(common)) setMissing(c, name, value);
    }

    requestLog.write({
      requestId,
      method: c.req.method,
      path: c.req.path,
      route: c.req.routePath ?? "unmatched",
      status: c.res.status,
      started,
      key: c.get("keyPrefix"),
      failure: c.get("failure"),
    });
  });

  base.onError((err, c) => {
    const requestId = c.get("requestId");
    if (requestId) c.header("x-request-id", requestId);
    const answer = errorAnswer(err);
    for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
    if (answer.status >= 500) c.set("failure", err);
    const body = requestId && options.codedErrors?.(c.req.path) ? codedErrorBody(answer, requestId) : answer.body;
    return c.json(body, answer.status as ContentfulStatusCode);
  });

  base.notFound((c) => {
    const answer = errorAnswer(new ApiError("not_found", "not found"));
    const requestId = c.get("requestId");
    const coded = requestId && options.codedErrors?.(c.req.path);
    return c.json(coded ? codedErrorBody(answer, requestId) : answer.body, 404);
  });
  return Object.assign(app, { nodeRoutes: new NodeRoutes(options, requestLog) });
}

function setMissing(c: Context, name: string, value: string): void {
  const headers = c.res.headers;
  if (headers.get(name) === value) return;
  try {
    headers.set(name, value);
  } catch {
    // The headers of a fetched Response are immutable: Hono copies the response.
    c.header(name, value);
  }
}

export type { AppOptions } from "./app-options.js";
export type { HonoEnv };
