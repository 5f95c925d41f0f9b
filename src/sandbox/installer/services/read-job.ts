import type { CallerCtx } from "../../context.js";
import { assignedJob } from "../jobs/assigned-job.js";
import { projectJob } from "../jobs/job-source.js";
import type { InstallerJob } from "../jobs/projection.js";

/** GET /api/partner/v1/jobs/{job_id} (§4.1): the projection of a job assigned to the caller's company, else 404. */
export function readInstallerJob({ ctx, input }: { ctx: CallerCtx; input: { jobId: string } }): InstallerJob {
  return projectJob(ctx.db, assignedJob(ctx.db, ctx.caller.companyId, input.jobId));
}
