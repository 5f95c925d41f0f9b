import type { SandboxCtx } from "../../../context.js";
import { requireOpen } from "../../../installer/jobs/assigned-job.js";
import { commitChange } from "../../../installer/jobs/commit-change.js";
import { readinessOf } from "../../../installer/jobs/readiness.js";
import { companyJob } from "./company-job.js";
import { type CompanyJobView, companyJobView } from "./job-view.js";

/**
 * Admin: the company sets its readiness blockers (§2.1 readiness; install.readiness_changed). `ready` follows: true
 * when no blocker — the company's or SCOPE_ACK_REQUIRED — remains (docs/decisions.md).
 */
export function setInstallReadiness({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { jobId: string; blockerCodes: string[] };
}): CompanyJobView {
  return ctx.db.transaction((tx) => {
    const before = companyJob(tx, input.jobId);
    requireOpen(before, "readiness");
    const { row } = commitChange(tx, ctx, {
      before,
      set: { blockerCodes: [...new Set(input.blockerCodes)] },
      event: () => ({ name: "install.readiness_changed", previousReadiness: readinessOf(before) }),
      originKeyId: null,
    });
    return companyJobView(tx, row);
  });
}
