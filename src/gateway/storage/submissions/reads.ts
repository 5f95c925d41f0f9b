import { idFloor } from "../../../ids.js";
import type { StoreSql } from "../sql/store-sql.js";
import { byBytes } from "../sql/store-sql.js";
import type {
  ChangeCursor,
  FailedSelection,
  MappingFailureRow,
  SubmissionAttemptRow,
  SubmissionFilter,
  SubmissionRow,
  SubmissionTimes,
} from "./row.js";

// The owner's reads, the same rows in the same order on both databases (D-242): each list says its order. Ids are
// time-ordered and compare alike under every usual collation, so ordering by id needs no `byBytes` (D-246).

/** A company's submissions, newest first, keyset-paginated: `limit + 1` rows, so the caller sees whether more follow. */
export async function listPage(store: StoreSql, companyId: string, filter: SubmissionFilter): Promise<SubmissionRow[]> {
  return (
    store.db
      .selectFrom("submissions")
      .selectAll()
      .where("companyId", "=", companyId)
      .$if(filter.status !== undefined, (q) => q.where("status", "=", filter.status as SubmissionRow["status"]))
      .$if(filter.keyId !== undefined, (q) => q.where("vendorKeyId", "=", filter.keyId as string))
      .$if(filter.connectionId !== undefined, (q) => q.where("connectionId", "=", filter.connectionId as string))
      .$if(filter.kind !== undefined, (q) => q.where("kind", "=", filter.kind as SubmissionRow["kind"]))
      .$if(filter.from !== undefined, (q) => q.where("createdAt", ">=", filter.from as string))
      .$if(filter.to !== undefined, (q) => q.where("createdAt", "<=", filter.to as string))
      // submissions_company_email_id_idx / _phone_id_idx (D-319): an equality on the normalised column implies the
      // partial index's predicate, on both databases.
      .$if(filter.email !== undefined, (q) => q.where("contactEmail", "=", filter.email as string))
      .$if(filter.phone !== undefined, (q) => q.where("contactPhone", "=", filter.phone as string))
      // D-320: no index — a company's rows read newest first until a page is found (the log's search box).
      .$if(filter.extras !== undefined, (q) =>
        q.where((eb) =>
          eb(
            eb.fn("lower", [eb.cast("extras", "text")]),
            "like",
            `%${likeEscaped((filter.extras as string).toLowerCase())}%`,
          ),
        ),
      )
      .$if(filter.cursor !== undefined, (q) => q.where("id", "<", filter.cursor as string))
      .orderBy("id", "desc")
      .limit(filter.limit + 1)
      .execute()
  );
}

/** `text` as a LIKE pattern's middle: its wildcards left out (the two databases escape them differently). */
function likeEscaped(text: string): string {
  return text.replace(/[%_]/g, "");
}

/** A company's submissions changed after `after`, oldest first, at most `limit`: the live log's poll (D-235). */
export async function changedSince(store: StoreSql, companyId: string, after: ChangeCursor, limit: number) {
  return store.db
    .selectFrom("submissions")
    .selectAll()
    .where("companyId", "=", companyId)
    .where((eb) => eb(eb.refTuple("updatedAt", "id"), ">", eb.tuple(after.updatedAt, after.id)))
    .orderBy("updatedAt")
    .orderBy("id")
    .limit(limit)
    .execute();
}

/** A submission's sends, in the order they were sent (two ids of one millisecond are in random order, ids.ts). */
export function attemptsOf(store: StoreSql, submissionId: string): Promise<SubmissionAttemptRow[]> {
  return store.db
    .selectFrom("submissionAttempts")
    .selectAll()
    .where("submissionId", "=", submissionId)
    .orderBy("startedAt")
    .orderBy("id")
    .execute();
}

/** A company's latest mapping failures, newest first. */
export function mappingFailuresOf(store: StoreSql, companyId: string, limit: number): Promise<MappingFailureRow[]> {
  return store.db
    .selectFrom("mappingFailures")
    .selectAll()
    .where("companyId", "=", companyId)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/** A key's latest submissions that still have their raw payload (the profile editor's samples, a replay's input). */
export async function withRawPayload(
  store: StoreSql,
  scope: { companyId: string; vendorKeyId: string; kind?: "lead" | "appointment" | undefined },
  limit: number,
): Promise<SubmissionRow[]> {
  return store.db
    .selectFrom("submissions")
    .selectAll()
    .where("companyId", "=", scope.companyId)
    .where("vendorKeyId", "=", scope.vendorKeyId)
    .where("rawPayload", "is not", null)
    .$if(scope.kind !== undefined, (q) => q.where("kind", "=", scope.kind as SubmissionRow["kind"]))
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/** A company's failed submissions, by id or filter, in the order of the (company, status, id) index. */
export function failedOf(store: StoreSql, companyId: string, selection: FailedSelection) {
  return selectedOf(store, companyId, "failed", selection);
}

/** A company's held hook payloads, by id or filter (a connection's on its own index), for a re-map (D-308). */
export function heldOf(store: StoreSql, companyId: string, selection: FailedSelection) {
  return selectedOf(store, companyId, "held", selection);
}

async function selectedOf(
  store: StoreSql,
  companyId: string,
  status: "failed" | "held",
  selection: FailedSelection,
): Promise<SubmissionRow[]> {
  const { submissionIds: ids, filter } = selection;
  if (ids?.length === 0) return [];
  const by = ids === undefined ? filter : undefined;
  return store.db
    .selectFrom("submissions")
    .selectAll()
    .where("companyId", "=", companyId)
    .where("status", "=", status)
    .$if(ids !== undefined, (q) => q.where("id", "in", ids as string[]))
    .$if(by?.keyId !== undefined, (q) => q.where("vendorKeyId", "=", by?.keyId as string))
    .$if(by?.connectionId !== undefined, (q) => q.where("connectionId", "=", by?.connectionId as string))
    .$if(by?.kind !== undefined, (q) => q.where("kind", "=", by?.kind as SubmissionRow["kind"]))
    .$if(by?.from !== undefined, (q) => q.where("createdAt", ">=", by?.from as string))
    .$if(by?.to !== undefined, (q) => q.where("createdAt", "<=", by?.to as string))
    .orderBy("id")
    .execute();
}

/**
 * Per vendor key, the submissions accepted since `since` (ms) and how many of those are forwarded and failed now: one
 * grouped range read on `submissions_company_id_idx`, counts cast to integer (a number on both).
 */
export function countsByKey(store: StoreSql, companyId: string, since: number, keyId?: string) {
  return store.db
    .selectFrom("submissions")
    .select((eb) => [
      "vendorKeyId as keyId",
      eb.cast<number>(eb.fn.countAll(), "integer").as("accepted"),
      eb.cast<number>(eb.fn.countAll().filterWhere("status", "=", "forwarded"), "integer").as("forwarded"),
      eb.cast<number>(eb.fn.countAll().filterWhere("status", "=", "failed"), "integer").as("failed"),
    ])
    .where("companyId", "=", companyId)
    .where("id", ">=", idFloor("sub", since))
    .$if(keyId !== undefined, (q) => q.where("vendorKeyId", "=", keyId as string))
    .groupBy("vendorKeyId")
    .orderBy(byBytes(store, "vendorKeyId"))
    .execute();
}

/** The timestamps of a company's submissions accepted since `since` (ms): the overview's time series, by id. */
export function timelineSince(store: StoreSql, companyId: string, since: number): Promise<SubmissionTimes[]> {
  return store.db
    .selectFrom("submissions")
    .select(["status", "createdAt", "forwardedAt", "updatedAt"])
    .where("companyId", "=", companyId)
    .where("id", ">=", idFloor("sub", since))
    .orderBy("id")
    .execute();
}

/** A company's sends since `since` (ms) per upstream credential, by credential: every attempt counts, a 429 too (§8). */
export function sendsByCredential(store: StoreSql, companyId: string, since: number) {
  return store.db
    .selectFrom("submissionAttempts as attempt")
    .innerJoin("submissions as submission", "submission.id", "attempt.submissionId")
    .select((eb) => ["submission.credentialId", eb.cast<number>(eb.fn.countAll(), "integer").as("used")])
    .where("attempt.id", ">=", idFloor("att", since))
    .where("submission.companyId", "=", companyId)
    .groupBy("submission.credentialId")
    .orderBy(byBytes(store, "submission.credentialId"))
    .execute();
}

/** Every company's sends since `since` (ms): the egress level, the gateway's single source IP. */
export async function sendsSince(store: StoreSql, since: number): Promise<number> {
  const row = await store.db
    .selectFrom("submissionAttempts")
    .select((eb) => eb.cast<number>(eb.fn.countAll(), "integer").as("used"))
    .where("id", ">=", idFloor("att", since))
    .executeTakeFirst();
  return row?.used ?? 0;
}
