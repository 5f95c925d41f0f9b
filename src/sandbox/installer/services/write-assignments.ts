import { ApiError } from "../../../http/errors.js";
import type { WriteCtx } from "../idempotency/answer-write.js";
import { assignedJob, requireOpen, requireVersion } from "../jobs/assigned-job.js";
import { commitChange } from "../jobs/commit-change.js";
import type { InstallerJob } from "../jobs/projection.js";
import { activeMemberships } from "../store/technicians.js";

/**
 * PUT /api/partner/v1/jobs/{job_id}/technician-assignments (§2.5; path and answer not shown, docs/decisions.md).
 * Replaces the whole set with the caller's own active technicians (422 naming any other id: unknown, another
 * company's or inactive alike); an empty set unassigns everyone. A technician kept in the set keeps its assignedAt.
 * §6.7 names no event for it: the feed carries the change.
 */
export function writeAssignments({
  ctx,
  input,
}: {
  ctx: WriteCtx;
  input: { jobId: string; membershipIds: string[]; expectedVersion: number };
}): InstallerJob {
  const before = assignedJob(ctx.tx, ctx.caller.companyId, input.jobId);
  requireVersion(before, input.expectedVersion);
  requireOpen(before, "technicianAssignments");
  const active = activeMemberships(ctx.tx, ctx.caller.companyId, input.membershipIds);
  const refused = input.membershipIds.filter((id) => !active.has(id));
  if (refused.length > 0) {
    throw new ApiError(
      "unprocessable",
      `membershipIds: not active technicians of this company: ${refused.join(", ")}`,
      {
        details: { field: "membershipIds", refused },
      },
    );
  }
  const now = new Date(ctx.clock.now()).toISOString();
  const kept = new Map(before.technicianAssignments.map((a) => [a.membershipId, a.assignedAt]));
  const technicianAssignments = input.membershipIds.map((membershipId) => ({
    membershipId,
    assignedAt: kept.get(membershipId) ?? now,
  }));
  return commitChange(ctx.tx, ctx, {
    before,
    set: { technicianAssignments },
    event: null,
    originKeyId: ctx.caller.keyId,
  }).job;
}
