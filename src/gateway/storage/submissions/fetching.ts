import { sql } from "kysely";
import type { StoreSql } from "../sql/store-sql.js";
import type { FetchChange, SubmissionRow } from "./row.js";

// A notified record's fetch (connections/fetcher.ts, docs/connections.md "Fetch after notify"): the `fetching` rows
// due, a claim with a lease, and each attempt's end, written only under the lease the claim took. Several gateway
// processes fetch from one database without an election: the claim's condition lets one of them take a row at a time
// (on PostgreSQL the second UPDATE waits for the first's row lock and re-reads the row it committed, D-240), and a
// process whose lease ran out writes nothing over its successor's outcome (D-321).

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * `fetching` rows due at `now` that no live lease holds, the earliest due first (the index on status and
 * next_attempt_at), at most `limit`: what the fetcher's poll reads. A `fetching` row always has its due time: the hook
 * writes it with the row, and every attempt's end sets the next. `skipConnections`: connections the fetcher may not
 * fetch for now (their rate), so that one vendor's backlog never hides another's due rows.
 */
export async function dueFetches(
  store: StoreSql,
  now: number,
  limit: number,
  skipConnections: readonly string[] = [],
): Promise<SubmissionRow[]> {
  return (
    store.db
      .selectFrom("submissions")
      .selectAll()
      .where("status", "=", "fetching")
      // A notified record is due at once when stored (no next attempt time yet), a retried one at its time.
      .where((eb) => eb.or([eb("nextAttemptAt", "is", null), eb("nextAttemptAt", "<=", now)]))
      .where((eb) => eb.or([eb("leaseUntil", "is", null), eb("leaseUntil", "<=", now)]))
      .$if(skipConnections.length > 0, (q) => q.where("connectionId", "not in", skipConnections))
      // Earliest due first, a new one (no time yet) before any: one order on both databases, which sort NULL apart.
      .orderBy(sql`coalesce(${sql.ref("nextAttemptAt")}, 0)`)
      .orderBy("id")
      .limit(limit)
      .execute()
  );
}

/**
 * Takes a `fetching` row for one fetch until `now + leaseMs`: only while it is due and no live lease holds it, so a
 * poll's stale read cannot fetch a row another process has just put back with a later attempt.
 */
export async function claimFetch(store: StoreSql, id: string, now: number, leaseMs: number): Promise<boolean> {
  const result = await store.db
    .updateTable("submissions")
    .set({ leaseUntil: now + leaseMs, updatedAt: iso(now) })
    .where("id", "=", id)
    .where("status", "=", "fetching")
    // A notified record is due at once when stored (no next attempt time yet), a retried one at its time.
    .where((eb) => eb.or([eb("nextAttemptAt", "is", null), eb("nextAttemptAt", "<=", now)]))
    .where((eb) => eb.or([eb("leaseUntil", "is", null), eb("leaseUntil", "<=", now)]))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/**
 * Ends one fetch attempt under the lease its claim took (`leaseUntil`): `change` written and the lease dropped — a
 * later attempt, the record the row becomes, or the dead letter. The row as it is now, or undefined when the lease is
 * no longer this one's (it ran out and another process took the row): then nothing is written.
 */
export async function endFetch(
  store: StoreSql,
  id: string,
  leaseUntil: number,
  now: number,
  change: FetchChange,
): Promise<SubmissionRow | undefined> {
  return store.db
    .updateTable("submissions")
    .set({ ...change, leaseUntil: null, updatedAt: iso(now) })
    .where("id", "=", id)
    .where("status", "=", "fetching")
    .where("leaseUntil", "=", leaseUntil)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Removes a `fetching` row under the lease its claim took: the record it named was stored already (the vendor's repeat
 * notification, D-323), so the repeat leaves nothing behind. False when the lease is no longer this one's.
 */
export async function dropFetch(store: StoreSql, id: string, leaseUntil: number): Promise<boolean> {
  const result = await store.db
    .deleteFrom("submissions")
    .where("id", "=", id)
    .where("status", "=", "fetching")
    .where("leaseUntil", "=", leaseUntil)
    .executeTakeFirst();
  return result.numDeletedRows === 1n;
}
