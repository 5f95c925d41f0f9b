import { getTableColumns } from "drizzle-orm";
import { type mappingFailures, type submissionAttempts, submissions } from "../../../db/schema/index.js";

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

/** A submission never sent: each column's default in the one schema, else null (no payloads, attempts or result). */
const NEVER_SENT = Object.fromEntries(
  Object.entries(getTableColumns(submissions)).map(([key, column]) => [key, column.default ?? null]),
);

/** A whole submission row: the given fields over those of one never sent. */
export function submissionRow(fields: Pick<SubmissionRow, Identity> & Partial<SubmissionRow>): SubmissionRow {
  return { ...NEVER_SENT, updatedAt: fields.createdAt, ...fields } as SubmissionRow;
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
  "traceParent",
  // D-320: the vendor's other details a profile kept apart.
  "extras",
] as const satisfies readonly (keyof NewSubmission)[];
