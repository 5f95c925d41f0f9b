import { createRoute, z } from "@hono/zod-openapi";
import type { ZodType } from "zod";
import { bodyLimit, OWNER_BODY } from "./body-limit.js";
import { notFound } from "./errors.js";
import { type BodyLimits, jsonBody } from "./json-body.js";

const anyJson = z.record(z.string(), z.unknown());
const errorBody = z.object({ error: z.string() }).passthrough().openapi("Error");
/** Owner APIs accept a bearer token or the session cookie. */
const security: Record<string, string[]>[] = [{ bearer: [] }, { session: [] }];

function responses(status: 200 | 201) {
  return {
    [status]: { description: "OK", content: { "application/json": { schema: anyJson } } },
    400: { description: "invalid request", content: { "application/json": { schema: errorBody } } },
    401: { description: "no valid session or token", content: { "application/json": { schema: errorBody } } },
    404: { description: "not found (or another company's)", content: { "application/json": { schema: errorBody } } },
    409: { description: "conflicts with the current state", content: { "application/json": { schema: errorBody } } },
    413: { description: "body over the route's limit", content: { "application/json": { schema: errorBody } } },
  };
}

/** A route's body limit as its OpenAPI description states it. */
export function bodyLimitText(limits: BodyLimits): string {
  return `The body: JSON of at most ${limits.maxBytes} bytes, nested at most ${limits.maxDepth} deep.`;
}

/** OpenAPI route definitions of one owner-API area: its path prefix and its tag in the document. */
export function routeKit(prefix: string, tag: string) {
  return {
    /** A route without a body (one sent anyway is read and dropped, within the owner API's default limit). */
    route(method: "get" | "post" | "delete", path: string, summary: string, query?: ZodType) {
      return createRoute({
        method,
        path: `${prefix}${path}`,
        summary,
        tags: [tag],
        security,
        middleware: [bodyLimit(OWNER_BODY.maxBytes)],
        ...(query ? { request: { query: query as z.ZodObject } } : {}),
        responses: responses(200),
      });
    },
    /**
     * A route with a JSON body validated by `body`, within `limits` (the owner API's small default unless the route
     * carries payloads): 413 past the size, 400 past the nesting, before the schema sees it.
     */
    bodyRoute<B extends ZodType>(
      method: "post" | "patch",
      path: string,
      summary: string,
      body: B,
      status: 200 | 201 = 200,
      limits: BodyLimits = OWNER_BODY,
    ) {
      return createRoute({
        method,
        path: `${prefix}${path}`,
        summary,
        description: bodyLimitText(limits),
        tags: [tag],
        security,
        middleware: [jsonBody(limits)],
        request: { body: { content: { "application/json": { schema: body } }, required: true } },
        responses: responses(status),
      });
    },
  };
}

/** The validated input of a route (validated by the route's own schema before the handler runs). */
export function valid<S extends ZodType>(
  c: { req: unknown },
  _schema: S,
  target: "json" | "query" = "json",
): z.output<S> {
  return (c.req as { valid(target: string): z.output<S> }).valid(target);
}

/** A path parameter; the router only matches when it is present. */
export function param(c: { req: { param(name: string): string | undefined } }, name: string): string {
  const value = c.req.param(name);
  if (!value) throw notFound();
  return value;
}
