import { sql as raw } from "kysely";
import { run, type StoreSql } from "../sql/store-sql.js";
import type { AlertStore } from "./port.js";

/**
 * The alerts record (docs/alerts.md): every statement on `alerts` and `alert_settings` is here, once for both
 * databases (D-275). Which index serves each is said beside it; the evaluator's reads touch a company's live alerts
 * only (the partial unique index), so history does not slow it.
 */
export function sqlAlertStore(sql: StoreSql): AlertStore {
  const { db } = sql;
  const all = () => db.selectFrom("alerts").selectAll();
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
    // One conditional statement each: of two evaluators, the one whose update found the value it read sends.
    async claimNotice(id, previous, at) {
      const result = await db
        .updateTable("alerts")
        .set({ notifiedAt: at })
        .where("id", "=", id)
        .where("status", "<>", "resolved")
        .where("notifiedAt", previous === null ? "is" : "=", previous)
        .executeTakeFirst();
      return result.numUpdatedRows !== 0n;
    },
    async claimResolvedNotice(id, at) {
      const result = await db
        .updateTable("alerts")
        .set({ resolvedNotifiedAt: at })
        .where("id", "=", id)
        .where("status", "=", "resolved")
        .where("resolvedNotifiedAt", "is", null)
        .executeTakeFirst();
      return result.numUpdatedRows !== 0n;
    },
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
