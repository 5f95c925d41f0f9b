import type { GatewayApp } from "../../app-env.js";
import {
  getConnection,
  listConnections,
  revokeConnection,
  rotateHookUrl,
} from "../../connections/connection-lifecycle.js";
import { createConnection } from "../../connections/create-connection.js";
import type { GatewayContext } from "../../context.js";
import { param, routeKit, valid } from "../route-kit.js";
import * as s from "./connections.schemas.js";

const { bodyRoute, route } = routeKit("/owner/v1", "owner");

/**
 * Hook connections (docs/connections.md, "Connecting a vendor"; D-306): made from a preset or the owner's own
 * declarations, listed, rotated, revoked. Only the answers of making and rotating carry the hook URL; no answer
 * carries a token digest or a vendor secret (D-307).
 */
export function connectionRoutes(app: GatewayApp, ctx: GatewayContext): void {
  app.openapi(
    route("get", "/connections", { summary: "List hook connections", role: "viewer", ok: s.connectionList }),
    async (c) => c.json({ connections: await listConnections({ ctx, companyId: c.get("owner").companyId }) }, 200),
  );

  app.openapi(
    bodyRoute("post", "/connections", s.connectionBody, {
      summary: "Connect a vendor (hook URL shown once)",
      description:
        "From a preset (`preset`, its secrets by the names the preset lists) or from the owner's own declarations " +
        "(`settings` and a published `profileVersionId`). `vendorApiBase` is refused outside sandbox mode.",
      role: "admin",
      ok: s.connectionWithHookUrl,
      status: 201,
      errors: ["not_found", "conflict"],
    }),
    async (c) =>
      c.json(
        await createConnection({ ctx, companyId: c.get("owner").companyId, input: valid(c, s.connectionBody) }),
        201,
      ),
  );

  app.openapi(
    route("get", "/connections/{connectionId}", { summary: "One hook connection", role: "viewer", ok: s.connection }),
    async (c) =>
      c.json(await getConnection({ ctx, companyId: c.get("owner").companyId, id: param(c, "connectionId") }), 200),
  );

  app.openapi(
    bodyRoute("post", "/connections/{connectionId}/rotate-hook-url", s.hookUrlRotationBody, {
      summary: "A new hook URL (shown once); the previous one works for the overlap",
      role: "admin",
      ok: s.connectionWithHookUrl,
      errors: ["conflict"],
    }),
    async (c) => {
      const { overlapHours } = valid(c, s.hookUrlRotationBody);
      const id = param(c, "connectionId");
      return c.json(await rotateHookUrl({ ctx, companyId: c.get("owner").companyId, id, overlapHours }), 200);
    },
  );

  app.openapi(
    route("post", "/connections/{connectionId}/revoke", {
      summary: "Revoke a hook connection (its hook URL and its vendor key)",
      role: "admin",
      ok: s.connection,
    }),
    async (c) =>
      c.json(await revokeConnection({ ctx, companyId: c.get("owner").companyId, id: param(c, "connectionId") }), 200),
  );
}
