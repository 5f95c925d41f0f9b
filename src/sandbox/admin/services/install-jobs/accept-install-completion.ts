import { ApiError, conflict } from "../../../../http/errors.js";
import type { SandboxCtx } from "../../../context.js";
import { commitChange } from "../../../installer/jobs/commit-change.js";
import { evidenceCounts } from "../../../installer/store/evidence.js";
import { companyJob } from "./company-job.js";
import { type CompanyJobView, companyJobView } from "./job-view.js";

/**
 * Admin: the company accepts the completion report of a COMPLETE job (§3.1 rule 4): install.completion_received with
 * the counts of photos and documents its installer uploaded (§6.1). Once only; 422 before COMPLETE.
 */
export function acceptInstallCompletion({ ctx, input }: { ctx: SandboxCtx; input: { jobId: string } }): CompanyJobView {
  return ctx.db.transaction((tx) => {
    const before = companyJob(tx, input.jobId);
    if (before.status !== "COMPLETE") {
      throw new ApiError("unprocessable", `completion: the job is ${before.status}, not COMPLETE (§3.1 rule 4)`, {
        details: { status: before.status },
      });
    }
    if (before.completionAcceptedAt !== null) throw conflict("the completion report was already accepted");
    const acceptedAt = new Date(ctx.clock.now()).toISOString();
    const evidence = before.installerCompanyId
      ? evidenceCounts(tx, before.id, before.installerCompanyId)
      : { photos: 0, documents: 0 };
    const { row } = commitChange(tx, ctx, {
      before,
      set: { completionAcceptedAt: acceptedAt },
      event: () => ({ name: "install.completion_received", acceptedAt, evidence }),
      originKeyId: null,
    });
    return companyJobView(tx, row);
  });
}
