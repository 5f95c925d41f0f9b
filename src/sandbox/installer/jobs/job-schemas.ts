import { z } from "@hono/zod-openapi";
import { utcTimestamp } from "../../../contract/appointment.js";
import { SCHEDULE_STATUSES } from "../../db/schema/index.js";
import { COMPANY_BLOCKER_CODES } from "./readiness.js";
import { isTimeZone } from "./time-zone.js";

/** The shapes of a job's fields as written by either side: the Installer API, the admin API and the seed file. */

/** §2.4 schedule fields: times both given (endsAt after startsAt) unless CANCELLED; an IANA zone. */
export const scheduleFields = {
  status: z.enum(SCHEDULE_STATUSES),
  startsAt: utcTimestamp.nullable().optional(),
  endsAt: utcTimestamp.nullable().optional(),
  timeZone: z.string().refine(isTimeZone, { message: "must be an IANA time zone name" }),
};

export function checkScheduleTimes(
  v: { status: string; startsAt?: string | null; endsAt?: string | null },
  ctx: z.RefinementCtx,
): void {
  const starts = v.startsAt ?? null;
  const ends = v.endsAt ?? null;
  if (v.status !== "CANCELLED") {
    if (starts === null) ctx.addIssue({ code: "custom", path: ["startsAt"], message: "is required" });
    if (ends === null) ctx.addIssue({ code: "custom", path: ["endsAt"], message: "is required" });
  } else if ((starts === null) !== (ends === null)) {
    ctx.addIssue({ code: "custom", path: [starts === null ? "startsAt" : "endsAt"], message: "is given with both" });
  }
  if (starts !== null && ends !== null && Date.parse(ends) <= Date.parse(starts)) {
    ctx.addIssue({ code: "custom", path: ["endsAt"], message: "must be after startsAt" });
  }
}

const text = (max: number) => z.string().min(1).max(max);

const addressSchema = z.object({ line1: text(200), city: text(100), state: text(50), zip: text(20) }).strict();

export const customerSchema = z
  .object({
    name: text(120),
    phone: z.string().min(7).max(40),
    address: addressSchema,
    /** Kept for the company; never in an installer's view (§2.1). */
    email: z.string().min(3).max(254),
  })
  .strict();

const scopeItemSchema = z.object({ sku: text(64), description: text(500), qty: z.number().int().min(1) }).strict();

/** §2.1 scope without its scopeVersion, which the platform counts. */
export const jobScopeSchema = z
  .object({
    packageName: text(200),
    systemType: text(100),
    equipment: z.array(scopeItemSchema).max(100).default([]),
    accessories: z.array(scopeItemSchema).max(100).default([]),
    supplierSources: z
      .array(z.object({ supplier: text(200), reference: text(200) }).strict())
      .max(50)
      .default([]),
  })
  .strict()
  .openapi("AdminInstallScope");

export const jobScheduleSchema = z
  .object(scheduleFields)
  .strict()
  .superRefine(checkScheduleTimes)
  .transform((v) => ({ ...v, startsAt: v.startsAt ?? null, endsAt: v.endsAt ?? null }))
  .openapi("AdminInstallSchedule");

/** What the company holds of the sale and an installer must never see (§1, §2.1). */
export const commercialSchema = z
  .object({
    quotePrice: z
      .object({ amount: z.number(), currency: text(3) })
      .strict()
      .nullable()
      .default(null),
    options: z
      .array(z.object({ name: text(200), price: z.number() }).strict())
      .max(50)
      .default([]),
    margin: z.number().nullable().default(null),
    financing: z
      .object({ provider: text(200), amount: z.number(), termMonths: z.number().int().min(1) })
      .strict()
      .nullable()
      .default(null),
    payments: z
      .array(z.object({ amount: z.number(), method: text(50), paidAt: text(40) }).strict())
      .max(50)
      .default([]),
    signatures: z
      .array(z.object({ signer: text(200), signedAt: text(40) }).strict())
      .max(20)
      .default([]),
  })
  .strict();

export const blockerCodesSchema = z.array(z.enum(COMPANY_BLOCKER_CODES)).max(20);
