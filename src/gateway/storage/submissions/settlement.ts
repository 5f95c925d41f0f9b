import { sql } from "kysely";
import { CompiledOnce } from "../sql/compiled.js";
import type { Sql } from "../sql/database.js";
import { byCodeUnits, type StoreSql } from "../sql/store-sql.js";
import type { SubmissionChange, SubmissionRow } from "./row.js";

// A submission's outcome: settled with its change, the appointments waiting for a lead held and released, and the
// settlement recorded (webhooks/on-submission-settled.ts).

const iso = (ms: number) => new Date(ms).toISOString();

/** Sets `change` on one submission, its lease dropped, and gives the row as it is now (none: no such submission). */
function settleOn(db: Sql, id: string, now: number, change: SubmissionChange) {
  return db
    .updateTable("submissions")
    .set({ ...change, leaseUntil: null, updatedAt: iso(now) })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

export function settle(store: StoreSql, id: string, now: number, change: SubmissionChange) {
  return settleOn(store.db, id, now, change);
}

/**
 * Settles a submission and, for a lead, queues the appointments that waited for it, in one transaction (a crash between
 * would leave them waiting); the lead's row lock orders it with holdForLead on PostgreSQL (D-240). Released by id.
 */
export function settleReleasing(store: StoreSql, id: string, now: number, change: SubmissionChange) {
  return store.atomically(async (db) => {
    const settled = await settleOn(db, id, now, change);
    if (settled?.kind !== "lead") return { settled, released: [] };
    const released = await db
      .updateTable("submissions")
      .set({ status: "queued", waitingReason: null, leaseUntil: null, updatedAt: iso(now) })
      // The appointments of the lead's own key waiting for it: its id in their `leadId` (`->>`: a JSON field as text).
      .where("status", "=", "waiting")
      .where("kind", "=", "appointment")
      .where("companyId", "=", settled.companyId)
      .where("vendorKeyId", "=", settled.vendorKeyId)
      .where((eb) => eb(eb.ref("canonicalBody", "->>").key("leadId"), "=", settled.id))
      .returningAll()
      .execute();
    return { settled, released: released.sort((a, b) => byCodeUnits(a.id, b.id)) };
  });
}

/**
 * An appointment naming a lead submission that is not settled yet waits for it, checked and set in one immediate
 * transaction holding the lead's row lock on PostgreSQL, so settleReleasing either finds it waiting or went first
 * (D-240). A reference that is no lead of the appointment's own key holds nothing (forwarding then fails it).
 */
export function holdForLead(store: StoreSql, appointmentId: string, leadSubmissionId: string, now: number) {
  return store.atomically(async (db) => {
    const appointment = await db
      .selectFrom("submissions")
      .select(["companyId", "vendorKeyId"])
      .where("id", "=", appointmentId)
      .executeTakeFirst();
    if (!appointment) return false;
    const lead = await db
      .selectFrom("submissions")
      .select("status")
      .where("id", "=", leadSubmissionId)
      .where("companyId", "=", appointment.companyId)
      .where("vendorKeyId", "=", appointment.vendorKeyId)
      .where("kind", "=", "lead")
      .$if(store.dialect === "postgres", (q) => q.forUpdate())
      .executeTakeFirst();
    if (!lead || lead.status === "forwarded" || lead.status === "failed") return false;
    await settleOn(db, appointmentId, now, {
      status: "waiting",
      waitingReason: `waiting for lead submission ${leadSubmissionId}`,
    });
    return true;
  }, "immediate");
}

/** Appointments left waiting for a lead that is already settled (by a process that predates settleReleasing). */
export async function releaseOrphanedDependents(store: StoreSql, now: number): Promise<number> {
  const result = await store.db
    .updateTable("submissions")
    .set({ status: "queued", waitingReason: null, updatedAt: iso(now) })
    .where("status", "=", "waiting")
    .where("kind", "=", "appointment")
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("submissions as lead")
          .select(eb.lit(1).as("settled"))
          .where("lead.id", "=", eb.ref("submissions.canonicalBody", "->>").key("leadId").$castTo<string>())
          .where("lead.kind", "=", "lead")
          .whereRef("lead.companyId", "=", "submissions.companyId")
          .whereRef("lead.vendorKeyId", "=", "submissions.vendorKeyId")
          .where("lead.status", "in", ["forwarded", "failed"]),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

const MARK_SETTLED = new CompiledOnce((on, args: { id: string; recordedAt: string }) =>
  on.db.updateTable("submissions").set({ settlementRecordedAt: args.recordedAt }).where("id", "=", args.id),
);

/** Marks a submission's settlement recorded (inside the transaction that records it). */
export async function markSettlementRecorded(store: StoreSql, id: string, nowMs: number): Promise<void> {
  await MARK_SETTLED.run(store, { id, recordedAt: iso(nowMs) });
}

/**
 * Settled submissions whose settlement was never recorded, `limit` at a time, on `submissions_settlement_owed_idx`
 * (its condition as constants): SQLite is told to, without statistics it would read and sort every settled row.
 */
export async function settlementsOwed(store: StoreSql, limit: number): Promise<SubmissionRow[]> {
  const index = store.dialect === "sqlite" ? sql`indexed by submissions_settlement_owed_idx` : sql``;
  const owed = sql<SubmissionRow>`select * from submissions ${index}
    where status in ('forwarded', 'failed') and settlement_recorded_at is null order by id limit ${limit}`;
  return (await owed.execute(store.db)).rows;
}

/** A held hook payload re-mapped (D-308): `change`, only if it is still held (a second re-map then changes nothing). */
export async function replaceHeld(store: StoreSql, id: string, change: Partial<SubmissionRow>): Promise<boolean> {
  const result = await store.db
    .updateTable("submissions")
    .set(change)
    .where("id", "=", id)
    .where("status", "=", "held")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A redrive's reset of a failed submission: queued again with `change` (a re-mapped body, a new key). */
export async function requeue(store: StoreSql, id: string, change: Partial<SubmissionRow>): Promise<void> {
  if (Object.values(change).every((value) => value === undefined)) return;
  await store.db.updateTable("submissions").set(change).where("id", "=", id).execute();
}
