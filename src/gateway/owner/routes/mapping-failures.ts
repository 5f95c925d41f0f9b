import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { listMappingFailures } from "../../submissions/list-submissions.js";
import { routeKit } from "../route-kit.js";
import * as s from "./mapping-failures.schemas.js";

const { route } = routeKit("/owner/v1", "owner");

/** Requests refused by a profile guardrail, with the payload that broke it. */
export function mappingFailureRoutes(app: GatewayApp, ctx: GatewayContext): void {
  app.openapi(
    route("get", "/mapping-failures", {
      summary: "Requests refused by a profile guardrail",
      role: "viewer",
      ok: s.mappingFailures,
    }),
    async (c) =>
      c.json({ failures: await listMappingFailures({ ctx, companyId: c.get("owner").companyId, limit: 100 }) }, 200),
  );
}
