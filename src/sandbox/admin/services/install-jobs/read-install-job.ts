import type { SandboxCtx } from "../../../context.js";
import { companyJob } from "./company-job.js";
import { type CompanyJobView, companyJobView } from "./job-view.js";

/** Admin: a job with everything the company holds on it — what an installer never sees included. */
export function readInstallJob({ ctx, input }: { ctx: SandboxCtx; input: { jobId: string } }): CompanyJobView {
  return companyJobView(ctx.db, companyJob(ctx.db, input.jobId));
}
