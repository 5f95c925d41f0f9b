import { idFloor } from "../../../ids.js";
import { rowOfCompany, run, type StoreSql } from "../sql/store-sql.js";
import { eraseDeliveries } from "./erasure.js";
import type { DeliveryStore } from "./port.js";
import { PENDING } from "./statements.js";

/** Webhook events, deliveries and attempts beyond the dispatcher's hot path (statements.ts). */
export function sqlDeliveryStore(sql: StoreSql): DeliveryStore {
  const { db } = sql;
  return {
    pageOf: (subscriptionId, status, before, limit) =>
      db
        .selectFrom("webhookDeliveries")
        .selectAll()
        .where("subscriptionId", "=", subscriptionId)
        .where("status", "=", status)
        .$if(before !== undefined, (q) => q.where("id", "<", before as string))
        .orderBy("id", "desc")
        .limit(limit)
        .execute(),
    getOfCompany: (id, companyId) => rowOfCompany(db, "webhookDeliveries", id, companyId),
    async envelopeOf(eventId) {
      const row = await db.selectFrom("webhookEvents").select("envelope").where("id", "=", eventId).executeTakeFirst();
      return row?.envelope;
    },
    attemptsOf: (deliveryRowId) =>
      db
        .selectFrom("webhookAttempts")
        .selectAll()
        .where("deliveryRowId", "=", deliveryRowId)
        .orderBy("attempt")
        .execute(),
    update: (id, change) => run(db.updateTable("webhookDeliveries").set(change).where("id", "=", id)),
    // The time range as an id range (ids carry their creation time) runs on the (subscription, status, id) index.
    async resetRange(subscriptionId, statuses, from, to, change) {
      if (statuses.length === 0) return 0;
      const result = await db
        .updateTable("webhookDeliveries")
        .set(change)
        .where("subscriptionId", "=", subscriptionId)
        .where("status", "in", statuses)
        .where("status", "!=", "pending")
        .where("id", ">=", idFloor("whd", from.getTime()))
        .where("id", "<", idFloor("whd", to.getTime() + 1))
        .where("createdAt", ">=", from.toISOString())
        .where("createdAt", "<=", to.toISOString())
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    // Per subscription, so the (subscription, status, id) index finds them without reading the whole table.
    resumeDelivering: () =>
      run(
        db
          .updateTable("webhookDeliveries")
          .set({ status: "pending" })
          .where("subscriptionId", "in", (eb) => eb.selectFrom("webhookSubscriptions").select("id"))
          .where("status", "=", "delivering"),
      ),
    // On the partial pending index.
    async backlog() {
      const rows = await db
        .selectFrom("webhookDeliveries")
        .select((eb) => ["subscriptionId", eb.fn.min("nextAttemptAt").as("due")])
        .where(PENDING)
        .groupBy("subscriptionId")
        .execute();
      return rows.map((r) => ({ subscriptionId: r.subscriptionId, due: r.due === null ? null : Number(r.due) }));
    },
    disableSubscription: (subscriptionId, reason, nowIso) =>
      run(
        db
          .updateTable("webhookSubscriptions")
          .set({ status: "disabled", disabledReason: reason, disabledAt: nowIso, updatedAt: nowIso })
          .where("id", "=", subscriptionId)
          .where("status", "=", "active"),
      ),
    eraseDeliveries: (companyId, prefixes, redact) => eraseDeliveries(sql, companyId, prefixes, redact),
  };
}
