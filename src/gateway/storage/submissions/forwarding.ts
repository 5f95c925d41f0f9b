import { newId } from "../../../ids.js";
import { CompiledOnce, pick } from "../sql/compiled.js";
import type { StoreSql } from "../sql/store-sql.js";
import { columnsOf } from "../sql/values.js";
import type { Admissible, AttemptRecord, SubmissionAttemptRow, SubmissionRow } from "./row.js";

// Forwarding's statements: the dispatcher's load, a send's claim and attempt, the leases given back, a paused
// credential's submissions. A statement's own condition decides, not SQLite's single writer (D-240).

const iso = (ms: number) => new Date(ms).toISOString();

const CLAIM = new CompiledOnce((on, args: { id: string; now: number; leaseUntil: number; updatedAt: string }) =>
  on.db
    .updateTable("submissions")
    .set((eb) => ({
      status: "forwarding",
      leaseUntil: args.leaseUntil,
      firstSentAt: eb.fn.coalesce("firstSentAt", eb.val(args.now)),
      updatedAt: args.updatedAt,
    }))
    .where("id", "=", args.id)
    .where((eb) =>
      eb.or([
        eb("status", "=", "queued"),
        eb.and([
          eb("status", "=", "forwarding"),
          eb.or([eb("leaseUntil", "is", null), eb("leaseUntil", "<=", args.now)]),
        ]),
      ]),
    )
    .returningAll(),
);

/**
 * Takes the submission for one send, only if it is queued or its last holder's lease ran out: one conditional UPDATE,
 * so of several processes handed it one sends it (D-240). The row as the claim left it, or undefined when not taken:
 * a send reads nothing else of its submission before it goes (D-361).
 */
export async function claim(
  store: StoreSql,
  id: string,
  now: number,
  leaseMs: number,
): Promise<SubmissionRow | undefined> {
  const result = await CLAIM.run(store, { id, now, leaseUntil: now + leaseMs, updatedAt: iso(now) });
  return result.rows[0];
}

/** Gives back a claim that was not sent after all: queued again, its first send time as it was. */
export async function unclaim(store: StoreSql, id: string, firstSentAt: number | null): Promise<void> {
  await store.db
    .updateTable("submissions")
    .set({ status: "queued", leaseUntil: null, firstSentAt })
    .where("id", "=", id)
    .where("status", "=", "forwarding")
    .execute();
}

/**
 * After a crash, what was being sent is sent again: leads merge and appointments replay (§4.2). `expiredBy` Infinity
 * (the embedded driver's start) compares nothing: PostgreSQL's bigint has none. `except`: senders alive (D-334).
 */
export async function releaseExpiredLeases(
  store: StoreSql,
  expiredBy: number,
  now: number,
  except: readonly string[] = [],
): Promise<number> {
  const result = await store.db
    .updateTable("submissions")
    .set({ status: "queued", leaseUntil: null, updatedAt: iso(now) })
    .where("status", "=", "forwarding")
    .$if(Number.isFinite(expiredBy), (q) =>
      q.where((eb) => eb.or([eb("leaseUntil", "is", null), eb("leaseUntil", "<=", expiredBy)])),
    )
    .$if(except.length > 0, (q) => q.where("id", "not in", except))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A closing dispatcher's claims given back, unsent. */
export async function releaseLeases(store: StoreSql, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await store.db
    .updateTable("submissions")
    .set({ status: "queued", leaseUntil: null })
    .where("id", "in", ids)
    .where("status", "=", "forwarding")
    .execute();
}

/** Queued submissions of these (active) credentials, oldest first: what a dispatcher needs of each, no more. */
export async function loadQueued(store: StoreSql, activeCredentialIds: readonly string[]): Promise<Admissible[]> {
  if (activeCredentialIds.length === 0) return [];
  return store.db
    .selectFrom("submissions")
    .select(["id", "kind", "companyId", "credentialId", "nextAttemptAt", "canonicalBody"])
    .where("status", "=", "queued")
    .where("credentialId", "in", activeCredentialIds)
    .orderBy("id")
    .execute();
}

const RECORD_ATTEMPT = new CompiledOnce((on, attempt: SubmissionAttemptRow) =>
  on.db.insertInto("submissionAttempts").values(pick(attempt, columnsOf("submissionAttempts"))),
);

/** One send of `row` in its attempt log: a 429's does not count as an attempt (§8). */
export async function recordAttempt(
  store: StoreSql,
  row: SubmissionRow,
  response: AttemptRecord,
  counted: boolean,
  idempotencyKey: string | null,
): Promise<void> {
  await RECORD_ATTEMPT.run(store, {
    id: newId("att"),
    submissionId: row.id,
    attempt: counted ? row.attempts + 1 : row.attempts,
    counted,
    startedAt: iso(response.startedAt),
    status: response.status,
    error: response.error,
    latencyMs: response.latencyMs,
    upstreamRequestId: response.requestId,
    upstreamApiVersion: response.apiVersion,
    idempotencyKey,
  });
}

/** What was queued or sent on a paused credential waits, in the transaction that pauses it (forwarding/attempt.ts). */
export async function waitOnCredential(store: StoreSql, credentialId: string, reason: string, now: number) {
  await store.db
    .updateTable("submissions")
    .set({ status: "waiting", waitingReason: `credential paused: ${reason}`, leaseUntil: null, updatedAt: iso(now) })
    .where("credentialId", "=", credentialId)
    .where("status", "in", ["queued", "forwarding"])
    .execute();
}

/**
 * Submissions still queued on a paused credential wait with the others (forwarding/dispatcher.ts): one accepted while
 * the pause was being committed, or whose notice was lost, would otherwise stay queued.
 */
export async function parkOnCredential(store: StoreSql, credentialId: string, reason: string, now: number) {
  const result = await store.db
    .updateTable("submissions")
    .set({ status: "waiting", leaseUntil: null, updatedAt: iso(now), waitingReason: `credential paused: ${reason}` })
    .where("credentialId", "=", credentialId)
    .where("status", "=", "queued")
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A rotated credential resumes its backlog: what waited on it is queued again. */
export async function resumeCredential(store: StoreSql, credentialId: string, now: number): Promise<void> {
  await store.db
    .updateTable("submissions")
    .set({ status: "queued", waitingReason: null, updatedAt: iso(now) })
    .where("credentialId", "=", credentialId)
    .where("status", "=", "waiting")
    .where("waitingReason", "like", "credential paused:%")
    .execute();
}
