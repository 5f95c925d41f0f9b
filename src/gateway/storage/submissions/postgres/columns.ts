import type { SubmissionRow } from "../row.js";

/**
 * The submissions columns as the SQLite store's rows give them (row.ts: `$inferSelect` of the SQLite schema): camel-case
 * names, epoch-millisecond bigints read as numbers (`::float8`: node-postgres would give an int8 as a string), the JSON
 * columns parsed (node-postgres parses `json`).
 */
export const ROW = `id, company_id AS "companyId", vendor_key_id AS "vendorKeyId", credential_id AS "credentialId", kind,
  status, raw_payload AS "rawPayload", canonical_body AS "canonicalBody", profile_version_id AS "profileVersionId",
  idempotency_key AS "idempotencyKey", payload_digest AS "payloadDigest",
  upstream_idempotency_key AS "upstreamIdempotencyKey", contact_email AS "contactEmail",
  contact_phone AS "contactPhone", attempts, lease_until::float8 AS "leaseUntil",
  upstream_key_generation AS "upstreamKeyGeneration", first_sent_at::float8 AS "firstSentAt",
  forwarded_at AS "forwardedAt", next_attempt_at::float8 AS "nextAttemptAt", waiting_reason AS "waitingReason",
  last_error AS "lastError", upstream_status AS "upstreamStatus", result, created_at AS "createdAt",
  updated_at AS "updatedAt", purged_at AS "purgedAt", settlement_recorded_at AS "settlementRecordedAt"`;

/** A submission attempt as the SQLite store gives it (`counted` a boolean). */
export const ATTEMPT_ROW = `id, submission_id AS "submissionId", attempt, counted, started_at AS "startedAt", status, error,
  latency_ms AS "latencyMs", upstream_request_id AS "upstreamRequestId", upstream_api_version AS "upstreamApiVersion",
  idempotency_key AS "idempotencyKey"`;

/** A mapping failure as the SQLite store gives it. */
export const MAPPING_FAILURE_ROW = `id, company_id AS "companyId", vendor_key_id AS "vendorKeyId",
  profile_version_id AS "profileVersionId", message, raw_payload AS "rawPayload", created_at AS "createdAt"`;

/** Each field of a submission: its column, and how a value is bound (JSON columns as text cast to json). */
const COLUMNS: Record<keyof SubmissionRow, { column: string; json?: true; bigint?: true }> = {
  id: { column: "id" },
  companyId: { column: "company_id" },
  vendorKeyId: { column: "vendor_key_id" },
  credentialId: { column: "credential_id" },
  kind: { column: "kind" },
  status: { column: "status" },
  rawPayload: { column: "raw_payload" },
  canonicalBody: { column: "canonical_body", json: true },
  profileVersionId: { column: "profile_version_id" },
  idempotencyKey: { column: "idempotency_key" },
  payloadDigest: { column: "payload_digest" },
  upstreamIdempotencyKey: { column: "upstream_idempotency_key" },
  contactEmail: { column: "contact_email" },
  contactPhone: { column: "contact_phone" },
  attempts: { column: "attempts" },
  leaseUntil: { column: "lease_until", bigint: true },
  upstreamKeyGeneration: { column: "upstream_key_generation" },
  firstSentAt: { column: "first_sent_at", bigint: true },
  forwardedAt: { column: "forwarded_at" },
  nextAttemptAt: { column: "next_attempt_at", bigint: true },
  waitingReason: { column: "waiting_reason" },
  lastError: { column: "last_error" },
  upstreamStatus: { column: "upstream_status" },
  result: { column: "result", json: true },
  createdAt: { column: "created_at" },
  updatedAt: { column: "updated_at" },
  purgedAt: { column: "purged_at" },
  settlementRecordedAt: { column: "settlement_recorded_at" },
};

/** Numbered parameters of one statement: `add` binds a value and gives its placeholder. */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The SET list of `change` (fields left undefined are not set, as drizzle's `set` skips them on SQLite): JSON values
 * bound as their text, bigints cast so a number binds whatever its size.
 */
export function setList(change: Partial<SubmissionRow>, params: Params): string[] {
  const set: string[] = [];
  for (const [field, value] of Object.entries(change)) {
    if (value === undefined) continue;
    const column = COLUMNS[field as keyof SubmissionRow];
    if (!column) throw new Error(`submissions has no field ${field}`);
    if (column.json) set.push(`${column.column} = ${params.add(value === null ? null : JSON.stringify(value))}::json`);
    else if (column.bigint) set.push(`${column.column} = ${params.add(value)}::bigint`);
    else set.push(`${column.column} = ${params.add(value)}`);
  }
  return set;
}
