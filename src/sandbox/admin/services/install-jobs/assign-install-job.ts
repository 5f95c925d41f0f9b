import { eq } from "drizzle-orm";
import { badRequest, conflict, notFound } from "../../../../http/errors.js";
import type { SandboxCtx } from "../../../context.js";
import type { SandboxTx } from "../../../db/client.js";
import { companies, type InstallJobRow } from "../../../db/schema/index.js";
import { requireOpen } from "../../../installer/jobs/assigned-job.js";
import { type CommittedChange, commitChange } from "../../../installer/jobs/commit-change.js";
import { companyJob } from "./company-job.js";
import { type CompanyJobView, companyJobView } from "./job-view.js";

/**
 * Admin: the company assigns a job to an installer company (install.job_assigned). A job assigned elsewhere is first
 * removed from that company (install.job_unassigned, its tombstone): two changes, two versions. The new assignment
 * starts over — status ASSIGNED, no technicians (the old ones were another company's), nothing awaiting
 * acknowledgement (the new installer reads the current scope).
 */
export function assignInstallJob({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { jobId: string; installerCompanyId: string };
}): CompanyJobView {
  return ctx.db.transaction((tx) => {
    const before = companyJob(tx, input.jobId);
    const changes = assignJob(tx, ctx, before, input.installerCompanyId);
    return companyJobView(tx, changes.at(-1)?.row ?? before);
  });
}

export function assignJob(
  tx: SandboxTx,
  ctx: SandboxCtx,
  before: InstallJobRow,
  installerCompanyId: string,
): CommittedChange[] {
  const installer = tx.select().from(companies).where(eq(companies.id, installerCompanyId)).get();
  if (!installer) throw notFound("installer company not found");
  if (installer.kind !== "installer_company") {
    throw badRequest("installerCompanyId: must be an installer company", { field: "installerCompanyId" });
  }
  requireOpen(before, "assign");
  if (before.installerCompanyId === installer.id) throw conflict("the job is already assigned to this company");
  const changes: CommittedChange[] = [];
  let current = before;
  if (current.installerCompanyId !== null) {
    const removed = unassignJob(tx, ctx, current);
    changes.push(removed);
    current = removed.row;
  }
  changes.push(
    commitChange(tx, ctx, {
      before: current,
      set: {
        installerCompanyId: installer.id,
        status: "ASSIGNED",
        technicianAssignments: [],
        acknowledgedScopeVersion: current.scopeVersion,
      },
      event: () => ({ name: "install.job_assigned", installerCompanyId: installer.id }),
      originKeyId: null,
    }),
  );
  return changes;
}

/** Admin: the company removes the job from its installer company (install.job_unassigned; §2.2 tombstone). */
export function unassignInstallJob({ ctx, input }: { ctx: SandboxCtx; input: { jobId: string } }): CompanyJobView {
  return ctx.db.transaction((tx) => {
    const before = companyJob(tx, input.jobId);
    requireOpen(before, "unassign");
    return companyJobView(tx, unassignJob(tx, ctx, before).row);
  });
}

function unassignJob(tx: SandboxTx, ctx: SandboxCtx, before: InstallJobRow): CommittedChange {
  const removed = before.installerCompanyId;
  if (removed === null) throw conflict("the job is not assigned to an installer company");
  return commitChange(tx, ctx, {
    before,
    set: { installerCompanyId: null, technicianAssignments: [] },
    event: () => ({ name: "install.job_unassigned", installerCompanyId: removed }),
    originKeyId: null,
  });
}
