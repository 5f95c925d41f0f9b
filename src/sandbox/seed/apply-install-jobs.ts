import type { SandboxTx } from "../db/client.js";
import { type InstallJobRow, NO_COMMERCIAL } from "../db/schema/index.js";
import { insertNewJob } from "../installer/jobs/commit-change.js";
import { documentRow } from "../installer/jobs/document-row.js";
import { insertTechnician } from "../installer/store/technicians.js";
import { SeedError } from "./load-seed.js";
import type { Seed, SeedCompany, SeedInstallJob } from "./seed-schema.js";

/**
 * Technicians, then every company's install jobs in `updatedAt` order, so the change feed reads like the history it
 * stands for: one item per job, the latest changes last (§2.2). Checked against the seed: a job's installer company is
 * an installer company of the seed, and its technicians are that company's.
 */
export function applyInstallJobs(tx: SandboxTx, seed: Seed, now: string): void {
  const installers = new Map<string, Set<string>>();
  for (const company of seed.companies) {
    if (company.technicians.length > 0 && company.kind !== "installer_company") {
      throw new SeedError(`company ${company.id}: only an installer company has technicians`);
    }
    if (company.kind === "installer_company") installers.set(company.id, new Set(company.technicians.map((t) => t.id)));
    for (const technician of company.technicians) {
      insertTechnician(tx, { ...technician, installerCompanyId: company.id, createdAt: now });
    }
  }

  const jobs = seed.companies.flatMap((company) => company.installJobs.map((job) => ({ company, job })));
  jobs.sort((a, b) => Date.parse(a.job.updatedAt) - Date.parse(b.job.updatedAt));
  for (const { company, job } of jobs) {
    check(company, job, installers);
    const row = jobRow(company, job);
    insertNewJob(
      tx,
      row,
      job.documents.map((d) => documentRow(job.id, d, d.availableAt)),
    );
  }
}

function check(company: SeedCompany, job: SeedInstallJob, installers: Map<string, Set<string>>): void {
  if (company.kind !== "company") throw new SeedError(`company ${company.id}: an installer company has no jobs`);
  const technicians = job.installerCompanyId ? installers.get(job.installerCompanyId) : new Set<string>();
  if (!technicians) {
    throw new SeedError(`job ${job.id}: ${job.installerCompanyId} is not an installer company of the seed`);
  }
  for (const assignment of job.technicianAssignments) {
    if (!technicians.has(assignment.membershipId)) {
      throw new SeedError(`job ${job.id}: ${assignment.membershipId} is not a technician of its installer company`);
    }
  }
}

function jobRow(company: SeedCompany, job: SeedInstallJob): InstallJobRow {
  return {
    id: job.id,
    companyId: company.id,
    installerCompanyId: job.installerCompanyId ?? null,
    version: 1,
    status: job.status,
    customer: job.customer,
    scope: job.scope,
    scopeVersion: job.scopeVersion,
    acknowledgedScopeVersion: job.scopeAcknowledged ? job.scopeVersion : job.scopeVersion - 1,
    schedule: job.schedule,
    blockerCodes: job.blockerCodes,
    technicianAssignments: job.technicianAssignments,
    commercial: job.commercial ?? NO_COMMERCIAL,
    cancellationReason: job.cancellationReason ?? null,
    completionAcceptedAt: null,
    createdAt: job.updatedAt,
    updatedAt: job.updatedAt,
  };
}
