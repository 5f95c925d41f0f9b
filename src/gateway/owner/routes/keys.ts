import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import {
  createVendorKey,
  listVendorKeys,
  revokeVendorKey,
  rotateVendorKey,
  updateVendorKey,
} from "../../keys/vendor-keys.js";
import { recentPayloads } from "../../submissions/recent-payloads.js";
import { param, routeKit, valid } from "../route-kit.js";
import * as s from "./keys.schemas.js";

const { bodyRoute, route } = routeKit("/owner/v1", "owner");

/** Vendor keys: issued, bound to a credential and profile versions, rotated, revoked; their recent payloads. */
export function keyRoutes(app: GatewayApp, ctx: GatewayContext): void {
  app.openapi(route("get", "/keys", { summary: "List vendor keys", role: "viewer", ok: s.vendorKeyList }), async (c) =>
    c.json({ keys: await listVendorKeys({ ctx, companyId: c.get("owner").companyId }) }, 200),
  );

  app.openapi(
    bodyRoute("post", "/keys", s.vendorKeyBody, {
      summary: "Issue a vendor key (secret shown once)",
      role: "admin",
      ok: s.vendorKeyWithSecret,
      status: 201,
      errors: ["not_found"],
    }),
    async (c) =>
      c.json(
        await createVendorKey({ ctx, companyId: c.get("owner").companyId, input: valid(c, s.vendorKeyBody) }),
        201,
      ),
  );

  app.openapi(
    bodyRoute("patch", "/keys/{keyId}", s.vendorKeyUpdateBody, {
      summary: "Change a key's bindings",
      role: "admin",
      ok: s.vendorKey,
    }),
    async (c) => {
      const input = valid(c, s.vendorKeyUpdateBody);
      return c.json(
        await updateVendorKey({ ctx, companyId: c.get("owner").companyId, keyId: param(c, "keyId"), input }),
        200,
      );
    },
  );

  app.openapi(
    bodyRoute("post", "/keys/{keyId}/rotate", s.vendorKeyRotateBody, {
      summary: "Rotate a key's secret",
      role: "admin",
      ok: s.vendorKeyWithSecret,
    }),
    async (c) => {
      const { overlapSeconds } = valid(c, s.vendorKeyRotateBody);
      const keyId = param(c, "keyId");
      return c.json(await rotateVendorKey({ ctx, companyId: c.get("owner").companyId, keyId, overlapSeconds }), 200);
    },
  );

  app.openapi(
    route("post", "/keys/{keyId}/revoke", { summary: "Revoke a key", role: "admin", ok: s.vendorKey }),
    async (c) =>
      c.json(await revokeVendorKey({ ctx, companyId: c.get("owner").companyId, keyId: param(c, "keyId") }), 200),
  );

  app.openapi(
    route("get", "/keys/{keyId}/payloads", {
      summary: "A key's latest raw payloads (for the profile editor)",
      role: "viewer",
      ok: s.recentPayloads,
      query: s.recentPayloadsQuery,
    }),
    async (c) => {
      const { kind, limit } = valid(c, s.recentPayloadsQuery, "query");
      const payloads = await recentPayloads({
        ctx,
        companyId: c.get("owner").companyId,
        keyId: param(c, "keyId"),
        kind,
        limit,
      });
      return c.json({ payloads }, 200);
    },
  );
}
