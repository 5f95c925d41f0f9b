import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";

/** §3.1: every state of an install job. */
export const JOB_STATUSES = [
  "ASSIGNED",
  "ACKNOWLEDGED",
  "EN_ROUTE",
  "ON_SITE",
  "BLOCKED",
  "IN_PROGRESS",
  "COMPLETE",
  "CANCELLED",
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** §2.4, §3.2: schedule status values. */
export const SCHEDULE_STATUSES = ["TENTATIVE", "CONFIRMED", "CANCELLED"] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

export interface JobAddress {
  line1: string;
  city: string;
  state: string;
  zip: string;
}

export interface JobCustomer {
  name: string;
  phone: string;
  address: JobAddress;
  /** §1, §2.1: never shown to an installer. */
  email: string;
}

export interface ScopeItem {
  sku: string;
  description: string;
  qty: number;
}

/** §2.1 accessories and supplierSources: element shapes not shown (docs/decisions.md). */
export interface SupplierSource {
  supplier: string;
  reference: string;
}

export interface JobScope {
  packageName: string;
  systemType: string;
  equipment: ScopeItem[];
  accessories: ScopeItem[];
  supplierSources: SupplierSource[];
}

export interface JobSchedule {
  status: ScheduleStatus;
  startsAt: string | null;
  endsAt: string | null;
  timeZone: string;
}

export interface TechnicianAssignment {
  membershipId: string;
  assignedAt: string;
}

/** What the company knows of the sale and an installer must never see (§1 installer company, §2.1). */
export interface JobCommercial {
  quotePrice: { amount: number; currency: string } | null;
  options: Array<{ name: string; price: number }>;
  margin: number | null;
  financing: { provider: string; amount: number; termMonths: number } | null;
  payments: Array<{ amount: number; method: string; paidAt: string }>;
  signatures: Array<{ signer: string; signedAt: string }>;
}

/** A job without commercial data (a company that keeps none on it). */
export const NO_COMMERCIAL: JobCommercial = {
  quotePrice: null,
  options: [],
  margin: null,
  financing: null,
  payments: [],
  signatures: [],
};

/**
 * Install jobs of a company (§2.1), each assigned to at most one installer company at a time. A row holds the whole
 * job — the installer-safe fields and the company's own (customer email, `commercial`); only
 * `installer/jobs/projection.ts` turns it into what an installer sees. `blockerCodes` are the company's readiness
 * blockers; SCOPE_ACK_REQUIRED is derived from `scopeVersion > acknowledgedScopeVersion` (§3.1 rule 3).
 */
export const installJobs = sqliteTable("install_jobs", {
  id: text("id").primaryKey(),
  companyId: text("company_id")
    .notNull()
    .references(() => companies.id),
  installerCompanyId: text("installer_company_id").references(() => companies.id),
  /** §2.1: +1 on every change, whichever side makes it. */
  version: integer("version").notNull(),
  status: text("status", { enum: JOB_STATUSES }).notNull(),
  customer: text("customer", { mode: "json" }).$type<JobCustomer>().notNull(),
  scope: text("scope", { mode: "json" }).$type<JobScope>().notNull(),
  scopeVersion: integer("scope_version").notNull(),
  acknowledgedScopeVersion: integer("acknowledged_scope_version").notNull(),
  /** Null until a schedule is set. */
  schedule: text("schedule", { mode: "json" }).$type<JobSchedule>(),
  blockerCodes: text("blocker_codes", { mode: "json" }).$type<string[]>().notNull(),
  technicianAssignments: text("technician_assignments", { mode: "json" }).$type<TechnicianAssignment[]>().notNull(),
  commercial: text("commercial", { mode: "json" }).$type<JobCommercial>().notNull(),
  cancellationReason: text("cancellation_reason"),
  /** §3.1 rule 4: when the company accepted the completion report. */
  completionAcceptedAt: text("completion_accepted_at"),
  createdAt: text("created_at").notNull(),
  /** §2.1: ISO-8601 UTC, milliseconds, Z. */
  updatedAt: text("updated_at").notNull(),
});

export type InstallJobRow = typeof installJobs.$inferSelect;
