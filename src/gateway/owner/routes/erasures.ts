import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { erasePerson } from "../../submissions/retention.js";
import { routeKit, valid } from "../route-kit.js";
import * as s from "./erasures.schemas.js";

const { bodyRoute } = routeKit("/owner/v1", "owner");

/** Erasure of a person's data from every copy (docs/decisions.md, "Erasure of every copy"). */
export function erasureRoutes(app: GatewayApp, ctx: GatewayContext): void {
  app.openapi(
    bodyRoute("post", "/erasures", s.erasureBody, {
      summary: "Erase a person's data by email or phone",
      role: "admin",
      ok: s.erasure,
    }),
    async (c) =>
      c.json(await erasePerson({ ctx, companyId: c.get("owner").companyId, input: valid(c, s.erasureBody) }), 200),
  );
}
