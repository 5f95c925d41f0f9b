import { z } from "zod";
import { parseApiKey } from "../../contract/api-key.js";
import { scopesFitKind } from "../auth/key-kinds.js";
import { JOB_STATUSES, KEY_KINDS, SCOPES } from "../db/schema/index.js";
import {
  blockerCodesSchema,
  commercialSchema,
  customerSchema,
  jobScheduleSchema,
  jobScopeSchema,
} from "../installer/jobs/job-schemas.js";

/** The seed file format, documented in docs/sandbox.md. Ids carry the spec's prefixes so fixtures read like data. */
const id = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}_[A-Za-z0-9_]{1,64}$`), `must look like ${prefix}_…`);
const timestamp = z.iso.datetime({ offset: false });

const personSchema = z.object({ id: id("per"), name: z.string().min(1), email: z.string().min(3) }).strict();
const contractorSchema = z.object({ id: id("ctr"), name: z.string().min(1) }).strict();

const keySchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "must be lowercase words joined by -"),
    kind: z.enum(KEY_KINDS),
    keyId: z.string(),
    /** A fixed, documented test secret: sandbox keys are public fixtures (§1 test environment). */
    secret: z.string(),
    scopes: z.array(z.enum(SCOPES)).optional(),
    personId: id("per").optional(),
    contractorId: id("ctr").optional(),
    revoked: z.boolean().default(false),
  })
  .strict()
  .refine((k) => parseApiKey(`${k.keyId}.${k.secret}`)?.environment === "test", {
    message: "keyId.secret must be a valid svc_test_ key (live keys never belong in a seed)",
    path: ["keyId"],
  })
  .refine((k) => !k.scopes || scopesFitKind(k.kind, k.scopes), {
    message: "scope not valid for this kind",
    path: ["scopes"],
  })
  .refine((k) => k.kind !== "general" || k.personId, {
    message: "a general key names its person (§2.7)",
    path: ["personId"],
  })
  .refine((k) => k.kind !== "installer-contractor" || k.contractorId, {
    message: "an installer-contractor key names its contractor record (§4.2)",
    path: ["contractorId"],
  });

const leadSchema = z
  .object({
    id: id("lead"),
    fullName: z.string().min(1),
    email: z.string().min(3),
    phone: z.string().min(1),
    address: z.string().min(3),
    smsConsent: z.boolean().optional(),
    personId: id("per").optional(),
    status: z.enum(["open", "closed"]).default("open"),
    createdAt: timestamp.optional(),
  })
  .strict();

const projectSchema = z
  .object({
    id: id("prj"),
    workOrderNo: z.string().min(1),
    address: z.string().min(1),
    city: z.string().min(1),
    state: z.string().min(1),
    zip: z.string().min(1),
    stage: z.string().min(1).default("SCHEDULED"),
    installerNote: z.string().default(""),
    contractorId: id("ctr").optional(),
    leadId: id("lead").optional(),
    lastUpdated: timestamp,
  })
  .strict();

/** §2.6: an installer company's technician memberships. */
const technicianSchema = z
  .object({ id: id("mem"), displayName: z.string().min(1), active: z.boolean().default(true) })
  .strict();

/**
 * §2.1: an install job of the company as it stands, seeded at version 1 with one feed item (visible to its installer
 * company, if it has one). `scopeAcknowledged: false` seeds a pending scope change (SCOPE_ACK_REQUIRED).
 */
const installJobSchema = z
  .object({
    id: id("job"),
    installerCompanyId: id("org").optional(),
    status: z.enum(JOB_STATUSES).default("ASSIGNED"),
    customer: customerSchema,
    scope: jobScopeSchema,
    scopeVersion: z.number().int().min(1).default(1),
    scopeAcknowledged: z.boolean().default(true),
    schedule: jobScheduleSchema.nullable().default(null),
    blockerCodes: blockerCodesSchema.default([]),
    technicianAssignments: z
      .array(z.object({ membershipId: id("mem"), assignedAt: timestamp }).strict())
      .max(20)
      .default([]),
    documents: z
      .array(z.object({ id: id("doc"), category: z.string().min(1), availableAt: timestamp }).strict())
      .default([]),
    commercial: commercialSchema.optional(),
    cancellationReason: z.string().optional(),
    updatedAt: timestamp,
  })
  .strict();

const companySchema = z
  .object({
    id: id("org"),
    name: z.string().min(1),
    kind: z.enum(["company", "installer_company"]).default("company"),
    people: z.array(personSchema).default([]),
    contractors: z.array(contractorSchema).default([]),
    keys: z.array(keySchema).default([]),
    leads: z.array(leadSchema).default([]),
    projects: z.array(projectSchema).default([]),
    technicians: z.array(technicianSchema).default([]),
    installJobs: z.array(installJobSchema).default([]),
  })
  .strict();

export const seedSchema = z.object({ description: z.string().optional(), companies: z.array(companySchema) }).strict();

export type Seed = z.output<typeof seedSchema>;
export type SeedCompany = Seed["companies"][number];
export type SeedInstallJob = SeedCompany["installJobs"][number];
