import type { SandboxCtx } from "../../../context.js";
import type { JobScope } from "../../../db/schema/index.js";
import { requireOpen } from "../../../installer/jobs/assigned-job.js";
import { commitChange } from "../../../installer/jobs/commit-change.js";
import { companyJob } from "./company-job.js";
import { type CompanyJobView, companyJobView } from "./job-view.js";

/**
 * Admin: the company changes a job's scope (§2.1, §3.1 rule 3): scopeVersion + 1, SCOPE_ACK_REQUIRED until the
 * installer's next status event, and install.scope_acknowledgement_required carrying the new scopeVersion (§6.1).
 */
export function changeInstallScope({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { jobId: string; scope: JobScope };
}): CompanyJobView {
  return ctx.db.transaction((tx) => {
    const before = companyJob(tx, input.jobId);
    requireOpen(before, "scope");
    const { row } = commitChange(tx, ctx, {
      before,
      set: { scope: input.scope, scopeVersion: before.scopeVersion + 1 },
      event: () => ({ name: "install.scope_acknowledgement_required" }),
      originKeyId: null,
    });
    return companyJobView(tx, row);
  });
}
