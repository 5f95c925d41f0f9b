import { ApiError } from "../../../http/errors.js";
import type { ScheduleStatus } from "../../db/schema/index.js";
import type { WriteCtx } from "../idempotency/answer-write.js";
import { assignedJob, requireOpen, requireVersion } from "../jobs/assigned-job.js";
import { commitChange } from "../jobs/commit-change.js";
import { type InstallerJob, scheduleView } from "../jobs/projection.js";

export interface ScheduleWrite {
  jobId: string;
  status: ScheduleStatus;
  startsAt?: string | null;
  endsAt?: string | null;
  timeZone: string;
  expectedVersion: number;
}

/** §2.4, §8: a schedule that ended more than 30 days ago cannot be changed. */
export const SCHEDULE_FROZEN_AFTER_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * PUT /api/partner/v1/jobs/{job_id}/schedule (§2.4, §3.2; path and answer not shown, docs/decisions.md). Replaces
 * the schedule: any schedule status may follow any other (§3.2 transitions not shown). Refused with 422 on a terminal
 * job and on a schedule that ended more than 30 days ago. Emits install.schedule_changed, which reaches the company
 * (§3.2 "to the other side").
 */
export function writeSchedule({ ctx, input }: { ctx: WriteCtx; input: ScheduleWrite }): InstallerJob {
  const before = assignedJob(ctx.tx, ctx.caller.companyId, input.jobId);
  requireVersion(before, input.expectedVersion);
  requireOpen(before, "schedule");
  requireChangeable(before.schedule?.endsAt ?? null, ctx.clock.now());
  const change = commitChange(ctx.tx, ctx, {
    before,
    set: {
      schedule: {
        status: input.status,
        startsAt: input.startsAt ?? null,
        endsAt: input.endsAt ?? null,
        timeZone: input.timeZone,
      },
    },
    event: () => ({
      name: "install.schedule_changed",
      changedBy: "installer",
      previousSchedule: before.schedule ? scheduleView(before.schedule) : null,
    }),
    originKeyId: ctx.caller.keyId,
  });
  return change.job;
}

/** §2.4, §8 "not allowed once the schedule ended more than 30 days ago" — for either side. */
export function requireChangeable(endsAt: string | null, nowMs: number): void {
  if (endsAt !== null && Date.parse(endsAt) < nowMs - SCHEDULE_FROZEN_AFTER_MS) {
    throw new ApiError("unprocessable", `schedule: it ended at ${endsAt}, more than 30 days ago, and cannot change`, {
      details: { field: "schedule" },
    });
  }
}
