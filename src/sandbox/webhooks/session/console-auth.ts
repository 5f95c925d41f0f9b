import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { unauthorized } from "../../../http/errors.js";
import type { SandboxEnv } from "../../env.js";
import { SESSION_COOKIE } from "./owner-credentials.js";
import { authenticateSession, type Owner } from "./sessions.js";

/** The session token of a request: `Authorization: Bearer sess_…`, else the session cookie. */
export function sessionTokenOf(c: Context): string | undefined {
  const header = c.req.header("authorization") ?? "";
  if (header.startsWith("Bearer ")) return header.slice(7).trim() || undefined;
  return getCookie(c, SESSION_COOKIE) || undefined;
}

/**
 * §5.7: console endpoints require an owner session, not an API key. A request carrying `x-api-key` is refused even
 * if it also has a session, so a partner's integration can never reach the console by accident.
 */
export function refuseApiKeys(): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    if (c.req.header("x-api-key") !== undefined) throw apiKeyRefused();
    await next();
  };
}

const apiKeyRefused = () => unauthorized("console endpoints require an owner session, not an API key (§5.7)");

/** Authenticates the owner session (401 for an API key or without a valid session) before the body is read. */
export function consoleAuth(): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    if (c.req.header("x-api-key") !== undefined) throw apiKeyRefused();
    const token = sessionTokenOf(c);
    const owner = token ? authenticateSession({ ctx: c.get("ctx"), input: { token } }) : undefined;
    if (!owner) throw unauthorized(token ? "invalid or expired owner session" : "owner session required");
    c.set("owner", owner);
    await next();
  };
}

export function ownerOf(c: Context<SandboxEnv>): Owner {
  const owner = c.get("owner");
  if (!owner) throw new Error("console route reached without an owner session");
  return owner;
}
