import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { jsonBody } from "../../../http/json-body.js";
import type { SandboxEnv } from "../../env.js";
import { limitsOverrideSchema } from "../../limits/config.js";
import type { SandboxAdmin } from "../sandbox-admin.js";

const ok = { 200: { description: "ok" } };

const reset = createRoute({
  method: "post",
  path: "/sandbox/admin/reset",
  summary: "Reset to the seed",
  responses: ok,
});
const stats = createRoute({ method: "get", path: "/sandbox/admin/stats", summary: "Referee stats", responses: ok });
const getLimits = createRoute({
  method: "get",
  path: "/sandbox/admin/limits",
  summary: "Current limits",
  responses: ok,
});
const putLimits = createRoute({
  method: "put",
  path: "/sandbox/admin/limits",
  summary: "Change limits (windows restart)",
  middleware: [jsonBody()] as const,
  request: {
    body: {
      content: { "application/json": { schema: z.object(limitsOverrideSchema.shape).strict() } },
      required: true,
    },
  },
  responses: ok,
});

/** Reset, stats and limits. */
export function stateRoutes(app: OpenAPIHono<SandboxEnv>, admin: SandboxAdmin): void {
  app.openapi(reset, (c) => {
    admin.reset();
    return c.json({ status: "reset" }, 200);
  });
  app.openapi(stats, (c) => c.json(admin.stats(), 200));
  app.openapi(getLimits, (c) => c.json(admin.limits, 200));
  app.openapi(putLimits, (c) => c.json(admin.setLimits(c.req.valid("json")), 200));
}
