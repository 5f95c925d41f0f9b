import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { leadResultSchema, leadSchema } from "../../../contract/lead.js";
import { jsonBody } from "../../../http/json-body.js";
import { authorize } from "../../auth/authorize.js";
import { callerCtx, type SandboxEnv } from "../../env.js";
import { inboundErrors, json } from "../schemas.js";
import { createLead } from "../services/create-lead.js";

const route = createRoute({
  method: "post",
  path: "/api/inbound/leads",
  summary: "Push a lead (§2.7, §3.3)",
  middleware: [authorize("general", "leads:write"), jsonBody()] as const,
  request: { body: { content: { "application/json": { schema: leadSchema } }, required: true } },
  responses: {
    201: json(leadResultSchema, "a new lead"),
    200: json(leadResultSchema, "merged into an open lead, or the address belongs to a sold project"),
    ...inboundErrors,
  },
});

export function leadRoutes(app: OpenAPIHono<SandboxEnv>): void {
  app.openapi(route, (c) => {
    const result = createLead({ ctx: callerCtx(c), input: c.req.valid("json") });
    if (result.status === "created") return c.json(result, 201);
    return c.json(result, 200);
  });
}
