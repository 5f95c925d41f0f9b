import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { ZodObject, ZodType } from "zod";
import { bodyLimit, OWNER_BODY } from "../../http/body-limit.js";
import { ERROR_CODES, type ErrorCode, type ErrorStatus } from "../../http/error-codes.js";
import { ApiError, notFound } from "../../http/errors.js";
import { type BodyLimits, jsonBody } from "../../http/json-body.js";
import { id } from "./routes/common.schemas.js";
import { ownerError } from "./routes/errors.schemas.js";

/**
 * Who may call a route (D-232): `viewer` any owner of the company, `admin` its admins only, `public` anyone (signing
 * in). Declared where the route is registered, shown in the document as `x-required-role`, enforced by the middleware
 * made from the declaration.
 */
export type RequiredRole = "public" | "viewer" | "admin";

/** The OpenAPI extension that carries a route's role. */
export const ROLE_EXTENSION = "x-required-role";

/** Owner APIs accept a bearer token or the session cookie. */
const security: Record<string, string[]>[] = [{ bearer: [] }, { session: [] }];

/** What a route answers: its success schema and status, and the errors it gives beyond those of every owner route. */
export interface Answers<S extends ZodType, St extends 200 | 201> {
  ok: S;
  status?: St;
  /** Codes only some routes give (409, 422, 429, 503, a 404 of an id in the body). */
  errors?: readonly ErrorCode[];
}

interface RouteSpec<S extends ZodType, St extends 200 | 201> extends Answers<S, St> {
  role: RequiredRole;
  summary: string;
  description?: string;
}

type ErrorResponses = Partial<
  Record<ErrorStatus, { description: string; content: { "application/json": { schema: typeof ownerError } } }>
>;
/**
 * The type of a route's answers names its success only: handlers return that (zod-openapi checks what they return
 * against it); errors are thrown, and the document lists them (the object holds both).
 */
type Responses<S extends ZodType, St extends 200 | 201> = {
  [K in St]: { description: string; content: { "application/json": { schema: S } } };
};

/**
 * The errors a route gives (docs/owner-api.md, "Errors"): every route 400 (a malformed request), 413 (its body limit),
 * 500 and 503 (store_unavailable); a route behind a session 401; a route that changes something 403 (the CSRF token, the role); a path id
 * 404 (another company's too); a JSON body 415; plus the route's own.
 */
function errorCodes(method: string, path: string, role: RequiredRole, hasBody: boolean, own: readonly ErrorCode[]) {
  // Every route reads the database: its outage is a 503 with retry-after (D-331).
  const codes = new Set<ErrorCode>(["bad_request", "payload_too_large", "internal", "store_unavailable", ...own]);
  if (role !== "public") codes.add("unauthorized");
  if (role === "admin") codes.add("forbidden");
  if (role !== "public" && method !== "get") codes.add("csrf_failed");
  if (path.includes("{")) codes.add("not_found");
  if (hasBody) codes.add("unsupported_media_type");
  return [...codes];
}

function responses<S extends ZodType, St extends 200 | 201>(ok: S, status: St, codes: ErrorCode[]): Responses<S, St> {
  const errors: ErrorResponses = {};
  for (const code of codes) {
    const { status: errorStatus, meaning } = ERROR_CODES[code];
    const known = errors[errorStatus];
    const description = known ? `${known.description} | ${code}: ${meaning}` : `${code}: ${meaning}`;
    errors[errorStatus] = { description, content: { "application/json": { schema: ownerError } } };
  }
  const success = { description: "OK", content: { "application/json": { schema: ok } } };
  return { ...errors, [status]: success } as unknown as Responses<S, St>;
}

/** The path's parameters (`{keyId}`): ids of this gateway, bounded like every input. */
function pathParams(path: string): ZodObject | undefined {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
  if (names.length === 0) return undefined;
  return z.object(Object.fromEntries(names.map((name) => [name, id])));
}

/** The middleware a route's role makes: 403 for an owner below it (ownerAuth has run: every non-public route has one). */
export function requireRole(role: RequiredRole): MiddlewareHandler<{ Variables: { owner: { role: string } } }> {
  return async (c, next) => {
    if (role === "admin" && c.get("owner").role !== "admin") {
      throw new ApiError("forbidden", "this action needs an admin owner account");
    }
    await next();
  };
}

/** A route's body limit as its OpenAPI description states it. */
export function bodyLimitText(limits: BodyLimits): string {
  return `The body: JSON of at most ${limits.maxBytes} bytes, nested at most ${limits.maxDepth} deep.`;
}

/** OpenAPI route definitions of one owner-API area: its path prefix and its tag in the document. */
export function routeKit(prefix: string, tag: string) {
  const common = (role: RequiredRole) => ({
    tags: [tag],
    security: role === "public" ? [] : security,
    [ROLE_EXTENSION]: role,
  });
  return {
    /** A route without a body (one sent anyway is read and dropped, within the owner API's default limit). */
    route<S extends ZodType, St extends 200 | 201 = 200, Q extends ZodObject | undefined = undefined>(
      method: "get" | "post" | "delete",
      path: string,
      spec: RouteSpec<S, St> & { query?: Q },
    ) {
      const params = pathParams(path);
      const codes = errorCodes(method, path, spec.role, false, spec.errors ?? []);
      return createRoute({
        method,
        path: `${prefix}${path}`,
        summary: spec.summary,
        ...(spec.description ? { description: spec.description } : {}),
        ...common(spec.role),
        middleware: [requireRole(spec.role), bodyLimit(OWNER_BODY.maxBytes)],
        request: {
          ...(params ? { params } : {}),
          ...(spec.query ? { query: spec.query as Exclude<Q, undefined> } : {}),
        },
        responses: responses(spec.ok, spec.status ?? (200 as St), codes),
      });
    },
    /**
     * A route with a JSON body validated by `body`, within `limits` (the owner API's small default unless the route
     * carries payloads): 413 past the size, 400 past the nesting, before the schema sees it.
     */
    bodyRoute<B extends ZodType, S extends ZodType, St extends 200 | 201 = 200>(
      method: "post" | "patch" | "put",
      path: string,
      body: B,
      spec: RouteSpec<S, St> & { limits?: BodyLimits },
    ) {
      const params = pathParams(path);
      const limits = spec.limits ?? OWNER_BODY;
      const codes = errorCodes(method, path, spec.role, true, spec.errors ?? []);
      return createRoute({
        method,
        path: `${prefix}${path}`,
        summary: spec.summary,
        description: [spec.description, bodyLimitText(limits)].filter(Boolean).join("\n\n"),
        ...common(spec.role),
        middleware: [requireRole(spec.role), jsonBody(limits)],
        request: {
          ...(params ? { params } : {}),
          body: { content: { "application/json": { schema: body } }, required: true },
        },
        responses: responses(spec.ok, spec.status ?? (200 as St), codes),
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
