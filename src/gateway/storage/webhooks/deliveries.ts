import { idFloor } from "../../../ids.js";
import { rowOfCompany, run, type StoreSql } from "../sql/store-sql.js";
import { eraseDeliveries } from "./erasure.js";
import type { WebhookDeliveryRow, WebhookDeliveryStatus } from "./row.js";
import { PENDING } from "./statements.js";

/** Deliveries beyond the hot path (statements.ts): the owner's log and redelivery, the dispatcher's start, erasure. */
export function sqlDeliveryStore(sql: StoreSql) {
  const { db } = sql;
  return {
    /** A subscription's deliveries of one status, newest first, `limit` of them below `before`. */
    pageOf: (subscriptionId: string, status: WebhookDeliveryStatus, before: string | undefined, limit: number) =>
      db
        .selectFrom("webhookDeliveries")
        .selectAll()
        .where("subscriptionId", "=", subscriptionId)
        .where("status", "=", status)
        .$if(before !== undefined, (q) => q.where("id", "<", before as string))
        .orderBy("id", "desc")
        .limit(limit)
        .execute(),
    getOfCompany: (id: string, companyId: string) => rowOfCompany(db, "webhookDeliveries", id, companyId),
    async envelopeOf(eventId: string) {
      const row = await db.selectFrom("webhookEvents").select("envelope").where("id", "=", eventId).executeTakeFirst();
      return row?.envelope;
    },
    /** A delivery's attempts, in order. */
    attemptsOf: (deliveryRowId: string) =>
      db
        .selectFrom("webhookAttempts")
        .selectAll()
        .where("deliveryRowId", "=", deliveryRowId)
        .orderBy("attempt")
        .execute(),
    update: (id: string, change: Partial<WebhookDeliveryRow>) =>
      run(db.updateTable("webhookDeliveries").set(change).where("id", "=", id)),
    /**
     * Resets a subscription's deliveries created in [from, to] with these statuses (never pending) to `change`: the
     * time range as an id range (ids carry their creation time), on the (subscription, status, id) index.
     */
    async resetRange(
      subscriptionId: string,
      statuses: WebhookDeliveryStatus[],
      from: Date,
      to: Date,
      change: Partial<WebhookDeliveryRow>,
    ) {
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
    /** A dispatcher's start: `delivering` rows (a previous process's) pending again, on the subscription index. */
    resumeDelivering: () =>
      run(
        db
          .updateTable("webhookDeliveries")
          .set({ status: "pending" })
          .where("subscriptionId", "in", (eb) => eb.selectFrom("webhookSubscriptions").select("id"))
          .where("status", "=", "delivering"),
      ),
    /** The earliest due time of every subscription with pending work, on the partial pending index. */
    async backlog() {
      const rows = await db
        .selectFrom("webhookDeliveries")
        .select((eb) => ["subscriptionId", eb.fn.min("nextAttemptAt").as("due")])
        .where(PENDING)
        .groupBy("subscriptionId")
        .execute();
      return rows.map((r) => ({ subscriptionId: r.subscriptionId, due: r.due === null ? null : Number(r.due) }));
    },
    /** Disables an active subscription (its endpoint failed too long, or answered 410 Gone). */
    disableSubscription: (subscriptionId: string, reason: string, nowIso: string) =>
      run(
        db
          .updateTable("webhookSubscriptions")
          .set({ status: "disabled", disabledReason: reason, disabledAt: nowIso, updatedAt: nowIso })
          .where("id", "=", subscriptionId)
          .where("status", "=", "active"),
      ),
    eraseDeliveries: eraseDeliveries.bind(undefined, sql),
  };
}
