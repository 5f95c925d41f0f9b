import { ApiError, badRequest } from "../../../http/errors.js";
import type { WriteCtx } from "../idempotency/answer-write.js";
import { assignedJob, requireVersion } from "../jobs/assigned-job.js";
import { commitChange } from "../jobs/commit-change.js";
import type { InstallerJob } from "../jobs/projection.js";
import { scopeAckRequired } from "../jobs/readiness.js";
import {
  allowsStatusEvent,
  type BLOCKER_CODES,
  isTerminal,
  type PostedStatus,
  TRANSITIONS,
} from "../jobs/transitions.js";

export interface StatusEvent {
  jobId: string;
  status: PostedStatus;
  occurredAt: string;
  note?: string;
  blockerCode?: (typeof BLOCKER_CODES)[number];
  expectedVersion: number;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * POST /api/partner/v1/jobs/{job_id}/status-events (§2.3, §3.1). Checked in this order: the occurredAt window (400),
 * the job assigned to the caller (404), the version (409 stating the current one), the transition (422). An accepted
 * event moves the status, acknowledges the current scopeVersion (§3.1 rule 3: it carries the current version, or it
 * would have been refused) and emits install.status_changed with the new version.
 */
export function postStatusEvent({ ctx, input }: { ctx: WriteCtx; input: StatusEvent }): InstallerJob {
  const now = ctx.clock.now();
  const occurredAt = Date.parse(input.occurredAt);
  if (occurredAt > now + 5 * MINUTE || occurredAt < now - 30 * DAY) {
    throw badRequest("occurredAt: must be at most 5 minutes in the future and at most 30 days in the past", {
      field: "occurredAt",
    });
  }
  const before = assignedJob(ctx.tx, ctx.caller.companyId, input.jobId);
  requireVersion(before, input.expectedVersion);
  const awaitingAck = scopeAckRequired(before);
  if (!allowsStatusEvent(before.status, input.status, awaitingAck)) {
    const allowed = TRANSITIONS[before.status];
    const why = isTerminal(before.status)
      ? `${before.status} is terminal`
      : `from ${before.status} only ${allowed.join(", ")}`;
    throw new ApiError("unprocessable", `status: ${before.status} → ${input.status} is not allowed (§3.1: ${why})`, {
      details: { field: "status", currentStatus: before.status, allowed },
    });
  }
  const change = commitChange(ctx.tx, ctx, {
    before,
    set: { status: input.status, acknowledgedScopeVersion: before.scopeVersion },
    event: () => ({
      name: "install.status_changed",
      previousStatus: before.status,
      occurredAt: input.occurredAt,
      blockerCode: input.blockerCode ?? null,
      note: input.note ?? null,
      scopeVersionAcknowledged: awaitingAck ? before.scopeVersion : null,
    }),
    originKeyId: ctx.caller.keyId,
  });
  return change.job;
}
