import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { appointmentResultSchema, appointmentSchema } from "../../../contract/appointment.js";
import { jsonBody } from "../../../http/json-body.js";
import { authorize } from "../../auth/authorize.js";
import { callerCtx, type SandboxEnv } from "../../env.js";
import { errorSchema, inboundErrors, json } from "../schemas.js";
import { createAppointment } from "../services/create-appointment.js";

const route = createRoute({
  method: "post",
  path: "/api/inbound/appointments",
  summary: "Book an appointment (§2.8)",
  middleware: [authorize("general", "appointments:write"), jsonBody()] as const,
  request: { body: { content: { "application/json": { schema: appointmentSchema } }, required: true } },
  responses: {
    201: json(appointmentResultSchema, "booked"),
    200: json(appointmentResultSchema, "identical replay: the original appointment"),
    404: json(errorSchema, "lead or project not visible to this key"),
    409: json(errorSchema, "idempotencyKey reused with a different body"),
    ...inboundErrors,
  },
});

export function appointmentRoutes(app: OpenAPIHono<SandboxEnv>): void {
  app.openapi(route, (c) => {
    const { outcome, appointmentId } = createAppointment({ ctx: callerCtx(c), input: c.req.valid("json") });
    if (outcome === "created") return c.json({ appointmentId }, 201);
    return c.json({ appointmentId }, 200);
  });
}
