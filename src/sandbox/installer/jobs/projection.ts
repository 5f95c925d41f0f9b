import type { InstallJobRow, JobSchedule, ScheduleStatus } from "../../db/schema/index.js";
import type { DocumentListing } from "../store/documents.js";
import { readinessOf } from "./readiness.js";

/** §2.1: the job as an installer sees it. */
export interface InstallerJob {
  id: string;
  version: number;
  status: InstallJobRow["status"];
  company: { id: string; name: string };
  customer: { name: string; phone: string; address: { line1: string; city: string; state: string; zip: string } };
  scope: {
    packageName: string;
    systemType: string;
    equipment: Array<{ sku: string; description: string; qty: number }>;
    accessories: Array<{ sku: string; description: string; qty: number }>;
    supplierSources: Array<{ supplier: string; reference: string }>;
    scopeVersion: number;
  };
  schedule: { status: ScheduleStatus; startsAt: string | null; endsAt: string | null; timeZone: string } | null;
  readiness: { ready: boolean; blockerCodes: string[] };
  documents: Array<{ id: string; category: string; availableAt: string }>;
  technicianAssignments: Array<{ membershipId: string; assignedAt: string }>;
  updatedAt: string;
}

/** Everything the projection is made from: the job's row, its company's name and its documents. */
export interface JobSource {
  job: InstallJobRow;
  companyName: string;
  documents: DocumentListing[];
}

/**
 * §2.1, §1 installer company: the installer-safe projection, the only way a job leaves the sandbox towards an
 * installer (API answers, feed items, install.* payloads). An allow-list: every field is copied by name, nested
 * objects included, so a field the record gains later — or anything the company keeps on it (customer email, quote
 * price, options, margin, financing, payments, signatures) — is left out unless it is added here.
 */
export function installerJob(source: JobSource): InstallerJob {
  const { job } = source;
  const { address } = job.customer;
  return {
    id: job.id,
    version: job.version,
    status: job.status,
    company: { id: job.companyId, name: source.companyName },
    customer: {
      name: job.customer.name,
      phone: job.customer.phone,
      address: { line1: address.line1, city: address.city, state: address.state, zip: address.zip },
    },
    scope: {
      packageName: job.scope.packageName,
      systemType: job.scope.systemType,
      equipment: job.scope.equipment.map((e) => ({ sku: e.sku, description: e.description, qty: e.qty })),
      accessories: job.scope.accessories.map((a) => ({ sku: a.sku, description: a.description, qty: a.qty })),
      supplierSources: job.scope.supplierSources.map((s) => ({ supplier: s.supplier, reference: s.reference })),
      scopeVersion: job.scopeVersion,
    },
    schedule: job.schedule ? scheduleView(job.schedule) : null,
    readiness: readinessOf(job),
    documents: source.documents.map((d) => ({ id: d.id, category: d.category, availableAt: d.availableAt })),
    technicianAssignments: job.technicianAssignments.map((a) => ({
      membershipId: a.membershipId,
      assignedAt: a.assignedAt,
    })),
    updatedAt: job.updatedAt,
  };
}

export function scheduleView(schedule: JobSchedule): NonNullable<InstallerJob["schedule"]> {
  return {
    status: schedule.status,
    startsAt: schedule.startsAt,
    endsAt: schedule.endsAt,
    timeZone: schedule.timeZone,
  };
}
