import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { setCookie } from "hono/cookie";
import { jsonBody } from "../../../http/json-body.js";
import type { SandboxEnv } from "../../env.js";
import { consoleAuth, refuseApiKeys, sessionTokenOf } from "../session/console-auth.js";
import { SESSION_COOKIE, SESSION_TTL_MS } from "../session/owner-credentials.js";
import { createSession, endSession } from "../session/sessions.js";
import { sessionSchema } from "./schemas.js";

const login = createRoute({
  method: "post",
  path: "/partner-api/session",
  summary: "Owner login: a console session (§5.7)",
  middleware: [refuseApiKeys(), jsonBody()] as const,
  request: { body: { content: { "application/json": { schema: sessionSchema } }, required: true } },
  responses: { 201: { description: "{sessionToken, companyId, expiresAt}; also set as a cookie" } },
});
const logout = createRoute({
  method: "delete",
  path: "/partner-api/session",
  summary: "End the session",
  middleware: [consoleAuth()] as const,
  responses: { 200: { description: "ended" } },
});

/** §5.7 owner sessions: the token works as `Authorization: Bearer` or as the cookie set here. */
export function sessionRoutes(app: OpenAPIHono<SandboxEnv>): void {
  app.openapi(login, (c) => {
    const session = createSession({ ctx: c.get("ctx"), input: c.req.valid("json") });
    setCookie(c, SESSION_COOKIE, session.sessionToken, {
      path: "/partner-api",
      httpOnly: true,
      sameSite: "Strict",
      maxAge: SESSION_TTL_MS / 1000,
    });
    return c.json(session, 201);
  });
  app.openapi(logout, (c) => {
    endSession({ ctx: c.get("ctx"), input: { token: sessionTokenOf(c) ?? "" } });
    return c.json({ status: "ended" }, 200);
  });
}
