import type { SandboxCtx } from "../../../context.js";
import { requireOpen } from "../../../installer/jobs/assigned-job.js";
import { commitChange } from "../../../installer/jobs/commit-change.js";
import { companyJob } from "./company-job.js";
import { type CompanyJobView, companyJobView } from "./job-view.js";

/**
 * Admin: the company cancels a job (§3.1: CANCELLED is set by the company and is terminal; install.job_cancelled).
 * §3.1 rule 5 does not show from which states: from every non-terminal one — a crew on site must be told to stop
 * (docs/decisions.md). The job stays assigned, so its installer reads it CANCELLED in the feed.
 */
export function cancelInstallJob({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { jobId: string; reason?: string };
}): CompanyJobView {
  return ctx.db.transaction((tx) => {
    const before = companyJob(tx, input.jobId);
    requireOpen(before, "cancel");
    const reason = input.reason ?? null;
    const { row } = commitChange(tx, ctx, {
      before,
      set: { status: "CANCELLED", cancellationReason: reason },
      event: () => ({ name: "install.job_cancelled", previousStatus: before.status, reason }),
      originKeyId: null,
    });
    return companyJobView(tx, row);
  });
}
