import type { SubmissionRow } from "./row.js";

/**
 * What a vendor (GET /api/inbound/submissions/…) and an owner see of a submission's progress. Not the webhook's
 * outcome (webhooks/projections.ts, submissionOutcomeView): that one is the vendor's event, shaped by §1.
 */
export function submissionStatusView(row: SubmissionRow) {
  return {
    submissionId: row.id,
    kind: row.kind,
    status: row.status,
    attempts: row.attempts,
    waitingReason: row.waitingReason,
    lastError: row.lastError,
    upstreamStatus: row.upstreamStatus,
    result: row.result,
    profileVersionId: row.profileVersionId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export type SubmissionView = ReturnType<typeof submissionStatusView>;
