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

/** What the owner's submission log filters by. */
export interface SubmissionFilter {
  status?: SubmissionRow["status"];
  keyId?: string;
  /** A hook connection's submissions only. */
  connectionId?: string;
  kind?: "lead" | "appointment";
  /** ISO timestamps bounding createdAt. */
  from?: string;
  to?: string;
  /** A person's e-mail, trimmed and lower-cased as intake stores it (D-319). */
  email?: string;
  /** A person's phone, its digits as intake stores them (D-319). */
  phone?: string;
  /** Text the submission's extras contain, any case (D-320). */
  extras?: string;
  /** The last id of the previous page: ids are time-ordered, so "older than the cursor" is a keyset seek. */
  cursor?: string;
  limit: number;
}

/** A position in a company's changes: the last row read, by its `updatedAt` and then its id. */
export type ChangeCursor = Pick<SubmissionRow, "updatedAt" | "id">;

/** What a redrive selects: a company's failed submissions (or held hook payloads), by id or by filter (or all). */
export interface FailedSelection {
  submissionIds?: string[] | undefined;
  filter?: Pick<SubmissionFilter, "keyId" | "connectionId" | "kind" | "from" | "to"> | undefined;
}

/** What a dispatcher needs of a queued submission: its route, when it is due, and a lead it may wait for. */
export type Admissible = Pick<
  SubmissionRow,
  "id" | "kind" | "companyId" | "credentialId" | "nextAttemptAt" | "canonicalBody"
>;

/** What one send upstream gave, as the submission's attempt log records it. */
export interface AttemptRecord {
  startedAt: number;
  status: number | null;
  error: string | null;
  latencyMs: number;
  requestId: string | null;
  apiVersion: string | null;
}

/** The fields of a submission its forwarding (and a redrive) may change. */
export type SubmissionChange = Partial<
  Pick<
    SubmissionRow,
    | "status"
    | "attempts"
    | "nextAttemptAt"
    | "lastError"
    | "upstreamStatus"
    | "result"
    | "waitingReason"
    | "forwardedAt"
    | "canonicalBody"
    | "upstreamIdempotencyKey"
    | "settlementRecordedAt"
    | "firstSentAt"
  >
>;

/**
 * What one fetch attempt of a notified record may write (connections/fetcher.ts): its count, when the next is due and
 * why this one failed; or the record the row becomes (its body, key and status), a held payload, or the dead letter.
 */
export type FetchChange = Partial<
  Pick<
    SubmissionRow,
    | "kind"
    | "status"
    | "rawPayload"
    | "canonicalBody"
    | "profileVersionId"
    | "idempotencyKey"
    | "payloadDigest"
    | "upstreamIdempotencyKey"
    | "contactEmail"
    | "contactPhone"
    | "heldReason"
    | "note"
    | "vendorRecordId"
    | "recordAction"
    | "test"
    | "attempts"
    | "nextAttemptAt"
    | "lastError"
    | "settlementRecordedAt"
  >
>;

/** How an erasure's scan reads a row: the person's own submissions by contact, appointments by the lead they name. */
export type ScanBy = "contact" | "leadReference";

/** The timestamps of one submission (the overview's time series). */
export type SubmissionTimes = Pick<SubmissionRow, "status" | "createdAt" | "forwardedAt" | "updatedAt">;

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
