import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { API_VERSION } from "../../../contract/api-version.js";
import { authorize } from "../../auth/authorize.js";
import { callerCtx, type SandboxEnv } from "../../env.js";
import { listTechnicians } from "../services/list-technicians.js";
import { installerErrors } from "./schemas.js";

const route = createRoute({
  method: "get",
  path: "/api/partner/v1/technicians",
  summary: "The caller's company's technician memberships (§2.6; path and answer not shown)",
  middleware: [authorize("installer-company", "technicians:read")] as const,
  responses: { 200: { description: "{apiVersion, resources: [{id, displayName, active}]}" }, ...installerErrors },
});

export function technicianRoutes(app: OpenAPIHono<SandboxEnv>): void {
  app.openapi(route, (c) =>
    c.json({ apiVersion: API_VERSION, resources: listTechnicians({ ctx: callerCtx(c) }) }, 200),
  );
}
