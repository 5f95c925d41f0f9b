import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { createOwnerToken, listOwnerTokens, revokeOwnerToken } from "../../tenants/owner-tokens.js";
import { param, routeKit, valid } from "../route-kit.js";
import * as s from "./tokens.schemas.js";

const { bodyRoute, route } = routeKit("/owner/v1", "owner");

/** An owner's bearer tokens for automation: shown once, revocable. An owner manages their own. */
export function tokenRoutes(app: GatewayApp, ctx: GatewayContext): void {
  app.openapi(
    route("get", "/tokens", {
      summary: "The owner's bearer tokens (never the tokens themselves)",
      role: "viewer",
      ok: s.tokenList,
    }),
    async (c) => c.json({ tokens: await listOwnerTokens({ ctx, owner: c.get("owner") }) }, 200),
  );

  // An owner's own tokens: a viewer manages theirs as an admin does.
  app.openapi(
    bodyRoute("post", "/tokens", s.tokenBody, {
      summary: "Create a bearer token (shown once)",
      role: "viewer",
      ok: s.createdToken,
      status: 201,
    }),
    async (c) => c.json(await createOwnerToken({ ctx, owner: c.get("owner"), input: valid(c, s.tokenBody) }), 201),
  );

  app.openapi(
    route("delete", "/tokens/{tokenId}", { summary: "Revoke a bearer token", role: "viewer", ok: s.revoked }),
    async (c) => {
      await revokeOwnerToken({ ctx, owner: c.get("owner"), tokenId: param(c, "tokenId") });
      return c.json({ revoked: true as const }, 200);
    },
  );
}
