import { and, asc, count, desc, eq, gte, inArray, isNotNull, lt, lte, type SQL, sql } from "drizzle-orm";
import { mappingFailures, submissionAttempts, submissions } from "../../../db/schema/index.js";
import { idFloor } from "../../../ids.js";
import type { StorageHandles } from "../handles.js";
import type { SubmissionRow } from "./row.js";

/** What the owner's submission log filters by. */
export interface SubmissionFilter {
  status?: "queued" | "waiting" | "forwarding" | "forwarded" | "failed";
  keyId?: string;
  kind?: "lead" | "appointment";
  /** ISO timestamps bounding createdAt. */
  from?: string;
  to?: string;
  /** The last id of the previous page: ids are time-ordered, so "older than the cursor" is a keyset seek. */
  cursor?: string;
  limit: number;
}

/** A company's submissions, newest first, keyset-paginated: `limit + 1` rows, so the caller sees whether more follow. */
export function listPage({ db }: StorageHandles, companyId: string, filter: SubmissionFilter): SubmissionRow[] {
  const where: SQL[] = [eq(submissions.companyId, companyId)];
  if (filter.status) where.push(eq(submissions.status, filter.status));
  if (filter.keyId) where.push(eq(submissions.vendorKeyId, filter.keyId));
  if (filter.kind) where.push(eq(submissions.kind, filter.kind));
  if (filter.from) where.push(gte(submissions.createdAt, filter.from));
  if (filter.to) where.push(lte(submissions.createdAt, filter.to));
  if (filter.cursor) where.push(lt(submissions.id, filter.cursor));
  return db
    .select()
    .from(submissions)
    .where(and(...where))
    .orderBy(desc(submissions.id))
    .limit(filter.limit + 1)
    .all();
}

/** A position in a company's changes: the last row read, by its `updatedAt` and then its id. */
export interface ChangeCursor {
  updatedAt: string;
  id: string;
}

/**
 * A company's submissions changed after `after`, oldest change first, at most `limit`: the live log's poll
 * (submissions/stream, D-235). A seek on `submissions_company_updated_idx`, so a quiet company costs one index probe.
 */
export function changedSince(
  { db }: StorageHandles,
  companyId: string,
  after: ChangeCursor,
  limit: number,
): SubmissionRow[] {
  return db
    .select()
    .from(submissions)
    .where(
      and(
        eq(submissions.companyId, companyId),
        sql`(${submissions.updatedAt}, ${submissions.id}) > (${after.updatedAt}, ${after.id})`,
      ),
    )
    .orderBy(asc(submissions.updatedAt), asc(submissions.id))
    .limit(limit)
    .all();
}

/** A submission's sends, in the order they were sent (two ids of one millisecond are in random order, ids.ts). */
export function attemptsOf({ db }: StorageHandles, submissionId: string) {
  return db
    .select()
    .from(submissionAttempts)
    .where(eq(submissionAttempts.submissionId, submissionId))
    .orderBy(submissionAttempts.startedAt, submissionAttempts.id)
    .all();
}

/** A company's latest mapping failures, newest first. */
export function mappingFailuresOf({ db }: StorageHandles, companyId: string, limit: number) {
  return db
    .select()
    .from(mappingFailures)
    .where(eq(mappingFailures.companyId, companyId))
    .orderBy(desc(mappingFailures.id))
    .limit(limit)
    .all();
}

/** A key's latest submissions that still have their raw payload (the profile editor's samples, a replay's input). */
export function withRawPayload(
  { db }: StorageHandles,
  scope: { companyId: string; vendorKeyId: string; kind?: "lead" | "appointment" | undefined },
  limit: number,
): SubmissionRow[] {
  const where = [
    eq(submissions.companyId, scope.companyId),
    eq(submissions.vendorKeyId, scope.vendorKeyId),
    isNotNull(submissions.rawPayload),
  ];
  if (scope.kind) where.push(eq(submissions.kind, scope.kind));
  return db
    .select()
    .from(submissions)
    .where(and(...where))
    .orderBy(desc(submissions.id))
    .limit(limit)
    .all();
}

/** What a redrive selects: a company's failed submissions, by id or by filter (or all of them). */
export interface FailedSelection {
  submissionIds?: string[] | undefined;
  filter?: { keyId?: string; kind?: "lead" | "appointment"; from?: string; to?: string } | undefined;
}

export function failedOf({ db }: StorageHandles, companyId: string, selection: FailedSelection): SubmissionRow[] {
  const where: SQL[] = [eq(submissions.companyId, companyId), eq(submissions.status, "failed")];
  if (selection.submissionIds) where.push(inArray(submissions.id, selection.submissionIds));
  else if (selection.filter) {
    if (selection.filter.keyId) where.push(eq(submissions.vendorKeyId, selection.filter.keyId));
    if (selection.filter.kind) where.push(eq(submissions.kind, selection.filter.kind));
    if (selection.filter.from) where.push(gte(submissions.createdAt, selection.filter.from));
    if (selection.filter.to) where.push(lte(submissions.createdAt, selection.filter.to));
  }
  return db
    .select()
    .from(submissions)
    .where(and(...where))
    .all();
}

/**
 * Per vendor key, the submissions accepted since `since` (ms) and how many of those are forwarded and failed now. One
 * grouped range read on `submissions_company_id_idx`.
 */
export function countsByKey({ db }: StorageHandles, companyId: string, since: number, keyId?: string) {
  const where = [eq(submissions.companyId, companyId), gte(submissions.id, idFloor("sub", since))];
  if (keyId) where.push(eq(submissions.vendorKeyId, keyId));
  return db
    .select({
      keyId: submissions.vendorKeyId,
      accepted: count(),
      forwarded: sql<number>`sum(${submissions.status} = 'forwarded')`,
      failed: sql<number>`sum(${submissions.status} = 'failed')`,
    })
    .from(submissions)
    .where(and(...where))
    .groupBy(submissions.vendorKeyId)
    .all();
}

/** The timestamps of a company's submissions accepted since `since` (ms): the overview's time series. */
export function timelineSince({ db }: StorageHandles, companyId: string, since: number) {
  return db
    .select({
      status: submissions.status,
      createdAt: submissions.createdAt,
      forwardedAt: submissions.forwardedAt,
      updatedAt: submissions.updatedAt,
    })
    .from(submissions)
    .where(and(eq(submissions.companyId, companyId), gte(submissions.id, idFloor("sub", since))))
    .all();
}

/** A company's sends since `since` (ms) per upstream credential: every attempt counts, a 429 too (§8). */
export function sendsByCredential({ db }: StorageHandles, companyId: string, since: number) {
  return db
    .select({ credentialId: submissions.credentialId, used: count() })
    .from(submissionAttempts)
    .innerJoin(submissions, eq(submissions.id, submissionAttempts.submissionId))
    .where(and(gte(submissionAttempts.id, idFloor("att", since)), eq(submissions.companyId, companyId)))
    .groupBy(submissions.credentialId)
    .all();
}

/** Every company's sends since `since` (ms): the egress level, the gateway's single source IP. */
export function sendsSince({ db }: StorageHandles, since: number): number {
  return (
    db
      .select({ used: count() })
      .from(submissionAttempts)
      .where(gte(submissionAttempts.id, idFloor("att", since)))
      .get()?.used ?? 0
  );
}
