import { z } from "@hono/zod-openapi";
import { atLeastChars, atMostChars } from "./chars.js";

/** §8 Time: ISO-8601 UTC with a Z suffix. */
export const utcTimestamp = z.iso.datetime({ offset: false, message: "must be an ISO-8601 UTC timestamp ending in Z" });

/**
 * §2.8 Appointment (request), shared by the sandbox and the gateway. `leadId` is kept a plain string here: which ids
 * are acceptable (a platform `lead_` id, or in the gateway a lead submission id) is each side's rule.
 */
export const appointmentSchema = z
  .object({
    leadId: z.string().min(1, { message: "is required" }),
    projectId: z.string().min(1).optional(),
    startsAt: utcTimestamp,
    endsAt: utcTimestamp.meta({ description: "must be after startsAt" }),
    notes: z
      .string()
      .refine((s) => atMostChars(s, 500), { message: "must be at most 500 characters" })
      .meta({ maxLength: 500 })
      .optional(),
    idempotencyKey: z
      .string()
      .refine((s) => atLeastChars(s, 8), { message: "must be at least 8 characters" })
      .refine((s) => atMostChars(s, 160), { message: "must be at most 160 characters" })
      .meta({ minLength: 8, maxLength: 160 }),
  })
  .superRefine((value, ctx) => {
    if (Date.parse(value.endsAt) <= Date.parse(value.startsAt)) {
      ctx.addIssue({ code: "custom", path: ["endsAt"], message: "must be after startsAt" });
    }
  })
  .openapi("Appointment");

export type Appointment = z.infer<typeof appointmentSchema>;

export const appointmentResultSchema = z
  .object({ appointmentId: z.string().startsWith("apt_") })
  .openapi("AppointmentResult");
