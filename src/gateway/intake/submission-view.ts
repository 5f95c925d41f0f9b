import type { submissions } from "../../db/schema/index.js";

export type SubmissionRow = typeof submissions.$inferSelect;

type Identity = "id" | "companyId" | "vendorKeyId" | "credentialId" | "kind" | "status" | "payloadDigest" | "createdAt";

/** A whole submission row: the given fields over those of one never sent (no payloads, attempts or result yet). */
export function submissionRow(fields: Pick<SubmissionRow, Identity> & Partial<SubmissionRow>): SubmissionRow {
  return {
    rawPayload: null,
    canonicalBody: null,
    profileVersionId: null,
    idempotencyKey: null,
    upstreamIdempotencyKey: null,
    contactEmail: null,
    contactPhone: null,
    attempts: 0,
    leaseUntil: null,
    upstreamKeyGeneration: 0,
    firstSentAt: null,
    forwardedAt: null,
    nextAttemptAt: null,
    waitingReason: null,
    lastError: null,
    upstreamStatus: null,
    result: null,
    purgedAt: null,
    settlementRecordedAt: null,
    updatedAt: fields.createdAt,
    ...fields,
  };
}

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
