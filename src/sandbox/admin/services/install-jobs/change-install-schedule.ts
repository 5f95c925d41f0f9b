import type { SandboxCtx } from "../../../context.js";
import type { JobSchedule } from "../../../db/schema/index.js";
import { requireOpen } from "../../../installer/jobs/assigned-job.js";
import { commitChange } from "../../../installer/jobs/commit-change.js";
import { scheduleView } from "../../../installer/jobs/projection.js";
import { requireChangeable } from "../../../installer/services/write-schedule.js";
import { companyJob } from "./company-job.js";
import { type CompanyJobView, companyJobView } from "./job-view.js";

/**
 * Admin: the company changes the schedule (§3.2: install.schedule_changed reaches the other side, the installer).
 * The same §2.4 rules as the installer's write: not on a terminal job, not once it ended more than 30 days ago.
 */
export function changeInstallSchedule({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { jobId: string; schedule: JobSchedule };
}): CompanyJobView {
  return ctx.db.transaction((tx) => {
    const before = companyJob(tx, input.jobId);
    requireOpen(before, "schedule");
    requireChangeable(before.schedule?.endsAt ?? null, ctx.clock.now());
    const { row } = commitChange(tx, ctx, {
      before,
      set: { schedule: input.schedule },
      event: () => ({
        name: "install.schedule_changed",
        changedBy: "company",
        previousSchedule: before.schedule ? scheduleView(before.schedule) : null,
      }),
      originKeyId: null,
    });
    return companyJobView(tx, row);
  });
}
