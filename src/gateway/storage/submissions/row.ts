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
    updatedAt: fields.createdAt,
    ...fields,
  };
}

/** The columns an accepted submission is inserted with, in the order of `insertValues` (both stores' writers). */
export const INSERT_COLUMNS = [
  "id",
  "company_id",
  "vendor_key_id",
  "credential_id",
  "kind",
  "status",
  "raw_payload",
  "canonical_body",
  "profile_version_id",
  "idempotency_key",
  "payload_digest",
  "upstream_idempotency_key",
  "contact_email",
  "contact_phone",
  "created_at",
  "updated_at",
] as const;

/** A new submission's values in INSERT_COLUMNS' order. */
export function insertValues(row: NewSubmission): unknown[] {
  return [
    row.id,
    row.companyId,
    row.vendorKeyId,
    row.credentialId,
    row.kind,
    row.status,
    row.rawPayload ?? null,
    row.canonicalBody === undefined || row.canonicalBody === null ? null : JSON.stringify(row.canonicalBody),
    row.profileVersionId ?? null,
    row.idempotencyKey ?? null,
    row.payloadDigest ?? null,
    row.upstreamIdempotencyKey ?? null,
    row.contactEmail ?? null,
    row.contactPhone ?? null,
    row.createdAt,
    row.updatedAt,
  ];
}
