import { getConnInfo } from "@hono/node-server/conninfo";
import { deleteCookie, setCookie } from "hono/cookie";
import { requestHeader } from "../../../http/node-headers.js";
import { clientAddressResolver, trustedPeerCheck } from "../../../net/client-address.js";
import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { SESSION_TTL_MS, signInOwner } from "../../tenants/owner-auth.js";
import { revokeOwnerToken } from "../../tenants/owner-tokens.js";
import { SESSION_COOKIE } from "../owner-auth.js";
import { cameOverHttps } from "../request-scheme.js";
import { routeKit, valid } from "../route-kit.js";
import { SignInLimiter } from "../sign-in-limiter.js";
import * as s from "./sessions.schemas.js";

const { bodyRoute, route } = routeKit("/owner/v1", "owner");

/** Signing in and out, the session and the signed-in owner (§5.7; docs/owner-api.md). */
export function sessionRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const signInLimiter = new SignInLimiter();
  const clientAddress = clientAddressResolver(ctx.settings.trustedProxy);
  const fromTrustedProxy = trustedPeerCheck(ctx.settings.trustedProxy);
  app.openapi(
    bodyRoute("post", "/sessions", s.signInBody, {
      summary: "Sign in (sets the session cookie; returns the CSRF token)",
      role: "public",
      ok: s.signedIn,
      errors: ["unauthorized", "rate_limited"],
    }),
    async (c) => {
      const input = valid(c, s.signInBody);
      signInLimiter.take(
        input.email,
        clientAddress(peerAddress(c), (name) => requestHeader(c, name)),
      );
      const session = await signInOwner({ ctx, input });
      setCookie(c, SESSION_COOKIE, session.token, {
        httpOnly: true,
        sameSite: "Strict",
        // Live mode is https by rule; in sandbox mode, whenever this request came over https.
        secure: ctx.settings.mode === "live" || cameOverHttps(c, fromTrustedProxy),
        path: "/",
        maxAge: SESSION_TTL_MS / 1000,
      });
      return c.json({ owner: session.owner, csrfToken: session.csrf }, 200);
    },
  );

  app.openapi(
    route("delete", "/sessions/current", { summary: "Sign out", role: "viewer", ok: s.signedOut }),
    async (c) => {
      await revokeOwnerToken({ ctx, owner: c.get("owner"), tokenId: c.get("owner").tokenId });
      deleteCookie(c, SESSION_COOKIE, { path: "/" });
      return c.json({ signedOut: true as const }, 200);
    },
  );

  app.openapi(
    route("get", "/sessions/current", {
      summary: "The session's owner and CSRF token (for a reloaded page)",
      role: "viewer",
      ok: s.currentSession,
    }),
    async (c) => {
      const { csrf, ...owner } = c.get("owner");
      // The console links the queue dashboard for the operator's admins (it exists in Redis mode only).
      const operator = owner.role === "admin" && owner.companyId === ctx.settings.operatorCompanyId;
      return c.json({ owner, csrfToken: csrf, operator }, 200);
    },
  );

  app.openapi(route("get", "/me", { summary: "The signed-in owner", role: "viewer", ok: s.principal }), async (c) => {
    const { csrf: _csrf, ...owner } = c.get("owner");
    return c.json(owner, 200);
  });
}

/** The peer's address; in tests that call the app without a socket there is none. */
function peerAddress(c: Parameters<typeof getConnInfo>[0]): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
