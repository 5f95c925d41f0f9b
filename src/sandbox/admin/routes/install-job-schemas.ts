import { z } from "@hono/zod-openapi";
import {
  blockerCodesSchema,
  commercialSchema,
  customerSchema,
  jobScheduleSchema,
  jobScopeSchema,
} from "../../installer/jobs/job-schemas.js";

export { jobScheduleSchema, jobScopeSchema };

const text = (max: number) => z.string().min(1).max(max);

export const newInstallJobSchema = z
  .object({
    companyId: text(100),
    customer: customerSchema,
    scope: jobScopeSchema,
    schedule: jobScheduleSchema.nullable().optional(),
    blockerCodes: blockerCodesSchema.default([]),
    commercial: commercialSchema.optional(),
    installerCompanyId: text(100).optional(),
  })
  .strict()
  .openapi("AdminNewInstallJob");

export const assignSchema = z
  .object({ installerCompanyId: text(100) })
  .strict()
  .openapi("AdminAssignInstallJob");
export const cancelSchema = z
  .object({ reason: text(500).optional() })
  .strict()
  .openapi("AdminCancelInstallJob");
export const readinessSchema = z.object({ blockerCodes: blockerCodesSchema }).strict().openapi("AdminInstallReadiness");

export const newDocumentSchema = z
  .object({
    category: z.string().regex(/^[A-Z][A-Z_]{0,39}$/, { message: "must be an upper-case category such as PERMIT" }),
    fileName: text(255).optional(),
    contentType: text(100).optional(),
    content: z.string().max(100_000).optional(),
  })
  .strict()
  .openapi("AdminNewInstallDocument");

export const newTechnicianSchema = z
  .object({ installerCompanyId: text(100), displayName: text(120), active: z.boolean().optional() })
  .strict()
  .openapi("AdminNewTechnician");

export const technicianUpdateSchema = z.object({ active: z.boolean() }).strict().openapi("AdminTechnicianUpdate");
