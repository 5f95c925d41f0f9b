import { idFloor } from "../../../../ids.js";
import type { PgQueryable } from "../../pg-handles.js";
import type { KeyCounts, SubmissionTimes } from "../port.js";
import type { ChangeCursor, FailedSelection, SubmissionFilter } from "../reads.js";
import type { MappingFailureRow, SubmissionAttemptRow, SubmissionRow } from "../row.js";
import { ATTEMPT_ROW, MAPPING_FAILURE_ROW, Params, ROW } from "./columns.js";

// The owner's reads on PostgreSQL: the statements of ../reads.ts, with the same filters and the same order (ids are
// time-ordered and compare byte-wise alike under any collation: one prefix, then digits and lower-case letters).

/** A company's submissions, newest first, keyset-paginated: `limit + 1` rows, so the caller sees whether more follow. */
export async function listPage(
  client: PgQueryable,
  companyId: string,
  filter: SubmissionFilter,
): Promise<SubmissionRow[]> {
  const p = new Params();
  const where = [`company_id = ${p.add(companyId)}`];
  if (filter.status) where.push(`status = ${p.add(filter.status)}`);
  if (filter.keyId) where.push(`vendor_key_id = ${p.add(filter.keyId)}`);
  if (filter.kind) where.push(`kind = ${p.add(filter.kind)}`);
  if (filter.from) where.push(`created_at >= ${p.add(filter.from)}`);
  if (filter.to) where.push(`created_at <= ${p.add(filter.to)}`);
  if (filter.cursor) where.push(`id < ${p.add(filter.cursor)}`);
  const limit = p.add(filter.limit + 1);
  const { rows } = await client.query<SubmissionRow>(
    `SELECT ${ROW} FROM submissions WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ${limit}`,
    p.values,
  );
  return rows;
}

/**
 * A company's submissions changed after `after`, oldest change first, at most `limit` (the live log's poll, D-235):
 * a row comparison on the (company_id, updated_at, id) index; ISO times and ids order alike in every collation (D-246).
 */
export async function changedSince(
  client: PgQueryable,
  companyId: string,
  after: ChangeCursor,
  limit: number,
): Promise<SubmissionRow[]> {
  const { rows } = await client.query<SubmissionRow>(
    `SELECT ${ROW} FROM submissions
     WHERE company_id = $1 AND (updated_at, id) > ($2, $3)
     ORDER BY updated_at, id LIMIT $4`,
    [companyId, after.updatedAt, after.id, limit],
  );
  return rows;
}

/** A submission's sends, in the order they were sent (two ids of one millisecond are in random order, ids.ts). */
export async function attemptsOf(client: PgQueryable, submissionId: string): Promise<SubmissionAttemptRow[]> {
  const { rows } = await client.query<SubmissionAttemptRow>(
    `SELECT ${ATTEMPT_ROW} FROM submission_attempts WHERE submission_id = $1 ORDER BY started_at, id`,
    [submissionId],
  );
  return rows;
}

/** A company's latest mapping failures, newest first. */
export async function mappingFailuresOf(
  client: PgQueryable,
  companyId: string,
  limit: number,
): Promise<MappingFailureRow[]> {
  const { rows } = await client.query<MappingFailureRow>(
    `SELECT ${MAPPING_FAILURE_ROW} FROM mapping_failures WHERE company_id = $1 ORDER BY id DESC LIMIT $2`,
    [companyId, limit],
  );
  return rows;
}

/** A key's latest submissions that still have their raw payload (the profile editor's samples, a replay's input). */
export async function withRawPayload(
  client: PgQueryable,
  scope: { companyId: string; vendorKeyId: string; kind?: "lead" | "appointment" | undefined },
  limit: number,
): Promise<SubmissionRow[]> {
  const p = new Params();
  const where = [
    `company_id = ${p.add(scope.companyId)}`,
    `vendor_key_id = ${p.add(scope.vendorKeyId)}`,
    "raw_payload IS NOT NULL",
  ];
  if (scope.kind) where.push(`kind = ${p.add(scope.kind)}`);
  const { rows } = await client.query<SubmissionRow>(
    `SELECT ${ROW} FROM submissions WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ${p.add(limit)}`,
    p.values,
  );
  return rows;
}

/** A company's failed submissions, by id or by filter (or all of them): a redrive's selection. */
export async function failedOf(
  client: PgQueryable,
  companyId: string,
  selection: FailedSelection,
): Promise<SubmissionRow[]> {
  const p = new Params();
  const where = [`company_id = ${p.add(companyId)}`, "status = 'failed'"];
  if (selection.submissionIds) where.push(`id = ANY(${p.add(selection.submissionIds)}::text[])`);
  else if (selection.filter) {
    if (selection.filter.keyId) where.push(`vendor_key_id = ${p.add(selection.filter.keyId)}`);
    if (selection.filter.kind) where.push(`kind = ${p.add(selection.filter.kind)}`);
    if (selection.filter.from) where.push(`created_at >= ${p.add(selection.filter.from)}`);
    if (selection.filter.to) where.push(`created_at <= ${p.add(selection.filter.to)}`);
  }
  // SQLite gives them in the order of the index it reads (company, status, id): the same order here.
  const { rows } = await client.query<SubmissionRow>(
    `SELECT ${ROW} FROM submissions WHERE ${where.join(" AND ")} ORDER BY id`,
    p.values,
  );
  return rows;
}

/** Per vendor key, the submissions accepted since `since` (ms) and how many of those are forwarded and failed now. */
export async function countsByKey(
  client: PgQueryable,
  companyId: string,
  since: number,
  keyId?: string,
): Promise<KeyCounts[]> {
  const p = new Params();
  const where = [`company_id = ${p.add(companyId)}`, `id >= ${p.add(idFloor("sub", since))}`];
  if (keyId) where.push(`vendor_key_id = ${p.add(keyId)}`);
  const { rows } = await client.query<KeyCounts>(
    `SELECT vendor_key_id AS "keyId", count(*)::int AS accepted,
       count(*) FILTER (WHERE status = 'forwarded')::int AS forwarded,
       count(*) FILTER (WHERE status = 'failed')::int AS failed
     FROM submissions WHERE ${where.join(" AND ")} GROUP BY vendor_key_id ORDER BY vendor_key_id`,
    p.values,
  );
  return rows;
}

/** The timestamps of a company's submissions accepted since `since` (ms): the overview's time series. */
export async function timelineSince(client: PgQueryable, companyId: string, since: number): Promise<SubmissionTimes[]> {
  const { rows } = await client.query<SubmissionTimes>(
    `SELECT status, created_at AS "createdAt", forwarded_at AS "forwardedAt", updated_at AS "updatedAt"
     FROM submissions WHERE company_id = $1 AND id >= $2 ORDER BY id`,
    [companyId, idFloor("sub", since)],
  );
  return rows;
}

/** A company's sends since `since` (ms) per upstream credential: every attempt counts, a 429 too (§8). */
export async function sendsByCredential(
  client: PgQueryable,
  companyId: string,
  since: number,
): Promise<{ credentialId: string; used: number }[]> {
  const { rows } = await client.query<{ credentialId: string; used: number }>(
    `SELECT s.credential_id AS "credentialId", count(*)::int AS used
     FROM submission_attempts a JOIN submissions s ON s.id = a.submission_id
     WHERE a.id >= $2 AND s.company_id = $1 GROUP BY s.credential_id ORDER BY s.credential_id`,
    [companyId, idFloor("att", since)],
  );
  return rows;
}

/** Every company's sends since `since` (ms): the egress level, the gateway's single source IP. */
export async function sendsSince(client: PgQueryable, since: number): Promise<number> {
  const { rows } = await client.query<{ used: number }>(
    "SELECT count(*)::int AS used FROM submission_attempts WHERE id >= $1",
    [idFloor("att", since)],
  );
  return rows[0]?.used ?? 0;
}
