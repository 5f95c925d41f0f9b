import { z } from "@hono/zod-openapi";
import { chars } from "./chars.js";

/** §2.7: digits, spaces, +, -, ( ) accepted. */
const PHONE = /^[0-9 +()-]+$/;

/**
 * §2.7 Lead (request). One module shared by the sandbox's Inbound API and the gateway's validation, so the two cannot
 * drift. Lengths count characters (code points), as the spec's limits do (chars.ts).
 */
export const leadSchema = z
  .object({
    fullName: chars(1, 120),
    email: z
      .string()
      .max(254, { message: "must be at most 254 characters" })
      .pipe(z.email({ message: "must be a valid email address" }))
      .meta({ format: "email" }),
    phone: chars(7, 40)
      .refine((s) => PHONE.test(s), {
        message: "may contain only digits, spaces, +, -, ( and )",
      })
      .meta({ pattern: PHONE.source }),
    address: chars(3, 500),
    smsConsent: z.boolean().optional(),
  })
  .openapi("Lead");

export type Lead = z.infer<typeof leadSchema>;

export const leadResultSchema = z
  .union([
    z.object({ status: z.enum(["created", "merged"]), leadId: z.string().startsWith("lead_") }),
    z.object({ status: z.literal("merged"), reason: z.string(), projectId: z.string().startsWith("prj_") }),
  ])
  .openapi("LeadResult");

export type LeadResult = z.infer<typeof leadResultSchema>;
