import { z } from "@hono/zod-openapi";
import { utcTimestamp } from "../../../contract/appointment.js";
import { KEY_KINDS, SCOPES } from "../../db/schema/index.js";
import { PIPELINE_EVENTS, REBATE_STATUSES } from "../services/pipeline/changes.js";

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
    partnerId: z.string().optional(),
  })
  .openapi("AdminNewKey");

export const moveSchema = z
  .object({ startsAt: utcTimestamp, endsAt: utcTimestamp })
  .refine((v) => Date.parse(v.endsAt) > Date.parse(v.startsAt), { path: ["endsAt"], message: "must be after startsAt" })
  .openapi("AdminMoveAppointment");

/** One change of a lead's sales pipeline (§6.7); every field but `event` has a default (docs/sandbox.md). */
export const leadEventSchema = z
  .object({
    event: z.enum(PIPELINE_EVENTS),
    projectId: z.string().min(1).optional(),
    option: z.string().min(1).max(200).optional(),
    amountCents: z.number().int().min(0).max(1_000_000_000).optional(),
    costCents: z.number().int().min(0).max(1_000_000_000).optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .optional(),
    stage: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]{0,49}$/, "must be an upper-case stage name")
      .optional(),
    method: z.enum(["card", "bank_transfer"]).optional(),
    status: z.enum(REBATE_STATUSES).optional(),
    program: z.string().min(1).max(200).optional(),
  })
  .strict()
  .openapi("AdminLeadEvent");

export const eventsQuerySchema = z.object({
  after: z.coerce.number().int().min(0).optional(),
  companyId: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
});

export const idParam = (name: string) => z.object({ [name]: z.string().openapi({ param: { name, in: "path" } }) });
