import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { jsonBody } from "../../../http/json-body.js";
import type { SandboxEnv } from "../../env.js";
import type { SandboxAdmin } from "../sandbox-admin.js";
import { eventsQuerySchema, idParam, leadEventSchema, moveSchema } from "./schemas.js";

const move = createRoute({
  method: "post",
  path: "/sandbox/admin/appointments/{appointment_id}/move",
  summary: "Move an appointment (records appointment.booked again)",
  middleware: [jsonBody()] as const,
  request: {
    params: idParam("appointment_id"),
    body: { content: { "application/json": { schema: moveSchema } }, required: true },
  },
  responses: { 200: { description: "moved" } },
});
const leadEvent = createRoute({
  method: "post",
  path: "/sandbox/admin/leads/{lead_id}/events",
  summary:
    "Change a lead's sales pipeline, recording its §6.7 event (quote, stage, deposit, invoice, rebate, completion)",
  middleware: [jsonBody()] as const,
  request: {
    params: idParam("lead_id"),
    body: { content: { "application/json": { schema: leadEventSchema } }, required: true },
  },
  responses: { 201: { description: "{eventId, event, leadId, version, stage, events}" } },
});
const events = createRoute({
  method: "get",
  path: "/sandbox/admin/events",
  summary: "Outbox events in order",
  request: { query: eventsQuerySchema },
  responses: { 200: { description: "events" } },
});
const lead = createRoute({
  method: "get",
  path: "/sandbox/admin/leads/{lead_id}",
  summary: "A lead and its submission history",
  request: { params: idParam("lead_id") },
  responses: { 200: { description: "the lead" } },
});

/** Platform-side records a partner cannot read: appointments, events, leads. */
export function recordRoutes(app: OpenAPIHono<SandboxEnv>, admin: SandboxAdmin): void {
  app.openapi(move, (c) => {
    const { startsAt, endsAt } = c.req.valid("json");
    const appointmentId = c.req.valid("param").appointment_id ?? "";
    return c.json(admin.moveAppointment({ appointmentId, startsAt, endsAt }), 200);
  });
  app.openapi(leadEvent, (c) => {
    const leadId = c.req.valid("param").lead_id ?? "";
    return c.json(admin.changePipeline(leadId, c.req.valid("json")), 201);
  });
  app.openapi(events, (c) => {
    const { after, companyId, limit } = c.req.valid("query");
    return c.json({ events: admin.events({ afterSequence: after, companyId, limit }) }, 200);
  });
  app.openapi(lead, (c) => c.json(admin.lead(c.req.valid("param").lead_id ?? ""), 200));
}
