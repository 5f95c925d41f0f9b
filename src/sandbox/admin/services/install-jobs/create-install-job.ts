import { eq } from "drizzle-orm";
import { badRequest, notFound } from "../../../../http/errors.js";
import { isoAt } from "../../../clock.js";
import type { SandboxCtx } from "../../../context.js";
import {
  companies,
  type InstallJobRow,
  type JobCommercial,
  type JobCustomer,
  type JobSchedule,
  type JobScope,
  NO_COMMERCIAL,
} from "../../../db/schema/index.js";
import { newId } from "../../../ids.js";
import { insertNewJob } from "../../../installer/jobs/commit-change.js";
import { assignJob } from "./assign-install-job.js";
import { type CompanyJobView, companyJobView } from "./job-view.js";

export interface NewInstallJob {
  companyId: string;
  customer: JobCustomer;
  scope: JobScope;
  schedule?: JobSchedule | null;
  blockerCodes?: string[];
  commercial?: JobCommercial;
  /** Assign at once: a second change (version 2, install.job_assigned). */
  installerCompanyId?: string;
}

/** Admin: a company creates an install job (version 1, one feed item, no event: §6.7 names none), optionally assigned. */
export function createInstallJob({ ctx, input }: { ctx: SandboxCtx; input: NewInstallJob }): CompanyJobView {
  const company = ctx.db.select().from(companies).where(eq(companies.id, input.companyId)).get();
  if (!company) throw notFound("company not found");
  if (company.kind !== "company") throw badRequest("companyId: must be a company, not an installer company");
  const now = isoAt(ctx.clock);
  const row: InstallJobRow = {
    id: newId("job"),
    companyId: company.id,
    installerCompanyId: null,
    version: 1,
    status: "ASSIGNED",
    customer: input.customer,
    scope: input.scope,
    scopeVersion: 1,
    acknowledgedScopeVersion: 1,
    schedule: input.schedule ?? null,
    blockerCodes: input.blockerCodes ?? [],
    technicianAssignments: [],
    commercial: input.commercial ?? NO_COMMERCIAL,
    cancellationReason: null,
    completionAcceptedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  return ctx.db.transaction((tx) => {
    const created = insertNewJob(tx, row).row;
    const job = input.installerCompanyId
      ? (assignJob(tx, ctx, created, input.installerCompanyId).at(-1)?.row ?? created)
      : created;
    return companyJobView(tx, job);
  });
}
