import type { submissions } from "../../db/schema/index.js";

export type SubmissionRow = typeof submissions.$inferSelect;

/** What a vendor (and an owner) sees of a submission's progress. */
export function submissionView(row: SubmissionRow) {
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

export type SubmissionView = ReturnType<typeof submissionView>;
