import { sql as raw } from "kysely";
import type { Sql } from "../sql/database.js";
import { run, type StoreSql } from "../sql/store-sql.js";
import type { AlertStore } from "./port.js";
import type { NewAlertNotice } from "./row.js";

/**
 * The alerts record (docs/alerts.md): every statement on `alerts` and `alert_settings` is here, once for both
 * databases (D-275). Which index serves each is said beside it; the evaluator's reads touch a company's live alerts
 * only (the partial unique index), so history does not slow it.
 */
export function sqlAlertStore(sql: StoreSql): AlertStore {
  const { db } = sql;
  const all = () => db.selectFrom("alerts").selectAll();
  /** A notice's claim, and what it owes each channel written with it in one transaction (D-347). */
  const claimWith = async (
    claim: (tx: Sql) => { executeTakeFirst(): Promise<{ numUpdatedRows: bigint }> },
    owed: NewAlertNotice[],
  ): Promise<boolean> => {
    if (owed.length === 0) return (await claim(db).executeTakeFirst()).numUpdatedRows !== 0n;
    return sql.atomically(async (tx) => {
      if ((await claim(tx).executeTakeFirst()).numUpdatedRows === 0n) return false;
      await tx.insertInto("alertNotices").values(owed).execute();
      return true;
    }, "immediate");
  };
  const ofCompany = (id: string, companyId: string) =>
    all().where("id", "=", id).where("companyId", "=", companyId).executeTakeFirst();
  return {
    // alerts_live_uq: its company prefix, its predicate.
    live: (companyId) =>
      all().where("companyId", "=", companyId).where("status", "<>", "resolved").orderBy("id").execute(),
    async open(row) {
      // The conflict target names the partial unique index (its columns and predicate), on both dialects.
      const result = await db
        .insertInto("alerts")
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(["companyId", "condition", "resourceType", "resourceId"])
            // The index's own predicate, as written in the schema: SQLite matches a partial index's WHERE textually.
            .where(raw<boolean>`status <> 'resolved'`)
            .doNothing(),
        )
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    },
    seen: (id, sighting) =>
      run(
        db
          .updateTable("alerts")
          .set({ ...sighting, updatedAt: sighting.lastSeenAt })
          .where("id", "=", id)
          .where("status", "<>", "resolved"),
      ),
    async resolve(id, at) {
      const result = await db
        .updateTable("alerts")
        .set({ status: "resolved", resolvedAt: at, updatedAt: at })
        .where("id", "=", id)
        .where("status", "<>", "resolved")
        .executeTakeFirst();
      return result.numUpdatedRows !== 0n;
    },
    // One conditional statement each: of two evaluators, the one whose update found the value it read sends; the
    // notices it owes are written in the same transaction (D-347).
    claimNotice(id, previous, at, owed = []) {
      const claim = (tx: Sql) =>
        tx
          .updateTable("alerts")
          .set({ notifiedAt: at })
          .where("id", "=", id)
          .where("status", "<>", "resolved")
          .where("notifiedAt", previous === null ? "is" : "=", previous);
      return claimWith(claim, owed);
    },
    claimResolvedNotice(id, at, owed = []) {
      const claim = (tx: Sql) =>
        tx
          .updateTable("alerts")
          .set({ resolvedNotifiedAt: at })
          .where("id", "=", id)
          .where("status", "=", "resolved")
          .where("resolvedNotifiedAt", "is", null);
      return claimWith(claim, owed);
    },
    // alert_notices_due_idx: a range from its start.
    dueNotices: (now, limit) =>
      db
        .selectFrom("alertNotices")
        .selectAll()
        .where("nextAttemptAt", "<=", now)
        .orderBy("nextAttemptAt")
        .limit(limit)
        .execute(),
    async takeNotice(id, due, leaseUntil) {
      const result = await db
        .updateTable("alertNotices")
        .set({ nextAttemptAt: leaseUntil })
        .where("id", "=", id)
        .where("nextAttemptAt", "=", due)
        .executeTakeFirst();
      return result.numUpdatedRows !== 0n;
    },
    endNotice: (id, leaseUntil, outcome) =>
      run(
        outcome.sent || outcome.nextAttemptAt === null
          ? db.deleteFrom("alertNotices").where("id", "=", id).where("nextAttemptAt", "=", leaseUntil)
          : db
              .updateTable("alertNotices")
              .set({ attempts: outcome.attempts, nextAttemptAt: outcome.nextAttemptAt, lastError: outcome.error })
              .where("id", "=", id)
              .where("nextAttemptAt", "=", leaseUntil),
      ),
    // alerts_resolved_notice_owed_idx: the same predicate, so the planner may use the partial index.
    resolvedNoticesOwed: (companyId) =>
      all()
        .where("companyId", "=", companyId)
        .where("status", "=", "resolved")
        .where("resolvedNotifiedAt", "is", null)
        .where("notifiedAt", "is not", null)
        .orderBy("id")
        .execute(),
    // alerts_company_id_idx, newest first; a status filter reads along it.
    list: (companyId, filter) =>
      all()
        .where("companyId", "=", companyId)
        .$if(filter.status !== undefined, (q) => q.where("status", "=", filter.status as "open"))
        .$if(filter.cursor !== undefined, (q) => q.where("id", "<", filter.cursor as string))
        .orderBy("id", "desc")
        .limit(filter.limit + 1)
        .execute(),
    getOfCompany: ofCompany,
    async acknowledge(id, companyId, at) {
      await db
        .updateTable("alerts")
        .set({ status: "acknowledged", acknowledgedAt: at, updatedAt: at })
        .where("id", "=", id)
        .where("companyId", "=", companyId)
        .where("status", "=", "open")
        .execute();
      return ofCompany(id, companyId);
    },
    async mute(id, companyId, until, at) {
      await db
        .updateTable("alerts")
        .set({ mutedUntil: until, updatedAt: at })
        .where("id", "=", id)
        .where("companyId", "=", companyId)
        .execute();
      return ofCompany(id, companyId);
    },
    settingsOf: (companyId) =>
      db.selectFrom("alertSettings").selectAll().where("companyId", "=", companyId).executeTakeFirst(),
    saveSettings: (row) =>
      run(
        db
          .insertInto("alertSettings")
          .values(row)
          .onConflict((oc) =>
            oc.column("companyId").doUpdateSet({
              thresholds: row.thresholds,
              routes: row.routes,
              channels: row.channels,
              sealedSecrets: row.sealedSecrets,
              renotifyMinutes: row.renotifyMinutes,
              updatedAt: row.updatedAt,
            }),
          ),
      ),
  };
}
