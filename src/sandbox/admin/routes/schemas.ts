import { z } from "@hono/zod-openapi";
import { utcTimestamp } from "../../../contract/appointment.js";
import { KEY_KINDS, SCOPES } from "../../db/schema/index.js";
import { LEAD_EVENT_STAGES, type LeadEventName } from "../services/emit-lead-event.js";

export const newCompanySchema = z
  .object({
    name: z.string().min(1).max(200),
    kind: z.enum(["company", "installer_company"]).default("company"),
    people: z
      .array(z.object({ name: z.string().min(1), email: z.string().min(3) }))
      .default([{ name: "Sandbox Rep", email: "rep@sandbox.example" }]),
    contractors: z.array(z.object({ name: z.string().min(1) })).default([{ name: "Sandbox Crew" }]),
  })
  .openapi("AdminNewCompany");

export const newKeySchema = z
  .object({
    companyId: z.string().min(1),
    kind: z.enum(KEY_KINDS),
    name: z.string().min(1).max(64).optional(),
    scopes: z.array(z.enum(SCOPES)).optional(),
    personId: z.string().optional(),
    contractorId: z.string().optional(),
  })
  .openapi("AdminNewKey");

export const moveSchema = z
  .object({ startsAt: utcTimestamp, endsAt: utcTimestamp })
  .refine((v) => Date.parse(v.endsAt) > Date.parse(v.startsAt), { path: ["endsAt"], message: "must be after startsAt" })
  .openapi("AdminMoveAppointment");

const LEAD_EVENTS = Object.keys(LEAD_EVENT_STAGES) as [LeadEventName, ...LeadEventName[]];

export const leadEventSchema = z
  .object({ event: z.enum(LEAD_EVENTS), projectId: z.string().min(1).optional() })
  .openapi("AdminLeadEvent");

export const eventsQuerySchema = z.object({
  after: z.coerce.number().int().min(0).optional(),
  companyId: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
});

export const idParam = (name: string) => z.object({ [name]: z.string().openapi({ param: { name, in: "path" } }) });
