import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { ApiError, unauthorized } from "../../http/errors.js";
import type { GatewayEnv } from "../app-env.js";
import type { GatewayContext } from "../context.js";
import { constantTimeEqual } from "../security/tokens.js";
import { authenticateOwner } from "../tenants/owner-auth.js";

export const SESSION_COOKIE = "pg_session";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Owner API authentication: a bearer token (automation) or the browser's session cookie. A cookie is ambient, so
 * every mutation through it must echo the session's CSRF token in `x-csrf-token`.
 */
export function ownerAuth(ctx: GatewayContext): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    const cookie = getCookie(c, SESSION_COOKIE);
    const token = bearer ?? cookie;
    if (!token) throw unauthorized("owner session or bearer token required");
    const owner = await authenticateOwner({ ctx, token });
    if (!bearer && !SAFE_METHODS.has(c.req.method)) {
      const presented = c.req.header("x-csrf-token") ?? "";
      if (!owner.csrf || !constantTimeEqual(presented, owner.csrf)) {
        throw new ApiError("csrf_failed", "missing or invalid x-csrf-token for a session request");
      }
    }
    c.set("owner", owner);
    await next();
  };
}
