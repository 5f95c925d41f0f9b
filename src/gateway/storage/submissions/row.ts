import type { mappingFailures, submissionAttempts, submissions } from "../../../db/schema/index.js";

/** A submission as stored: one accepted vendor request with its forwarding state. */
export type SubmissionRow = typeof submissions.$inferSelect;
/** A submission as intake writes it. */
export type NewSubmission = typeof submissions.$inferInsert;
/** One send of a submission upstream. */
export type SubmissionAttemptRow = typeof submissionAttempts.$inferSelect;
/** A native payload a profile's guardrail refused, kept for the owner to fix the profile. */
export type MappingFailureRow = typeof mappingFailures.$inferSelect;
/** A refused payload as intake records it (the store gives it an id). */
export type NewMappingFailure = Omit<typeof mappingFailures.$inferInsert, "id">;

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
    connectionId: null,
    heldReason: null,
    note: null,
    vendorRecordId: null,
    recordAction: null,
    test: false,
    fetchTarget: null,
    updatedAt: fields.createdAt,
    ...fields,
  };
}

/** The fields intake writes (the others take their defaults): one list for the insert of both databases (writer.ts). */
export const INSERT_FIELDS = [
  "id",
  "companyId",
  "vendorKeyId",
  "credentialId",
  "kind",
  "status",
  "rawPayload",
  "canonicalBody",
  "profileVersionId",
  "idempotencyKey",
  "payloadDigest",
  "upstreamIdempotencyKey",
  "contactEmail",
  "contactPhone",
  "createdAt",
  "updatedAt",
  // A hook connection's (docs/connections.md): where it came from, and for what is not forwarded, why.
  "connectionId",
  "heldReason",
  "note",
  "vendorRecordId",
  "recordAction",
  "test",
  "fetchTarget",
] as const satisfies readonly (keyof NewSubmission)[];
