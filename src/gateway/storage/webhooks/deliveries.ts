import { idFloor } from "../../../ids.js";
import { rowOfCompany, type StoreSql } from "../sql/store-sql.js";
import { eraseDeliveries } from "./erasure.js";
import type { DeliveryStore } from "./port.js";
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookDeliveryStatus } from "./row.js";
import { PENDING } from "./statements.js";

/**
 * Webhook events, their deliveries and the deliveries' attempts, beyond the dispatcher's hot path (statements.ts):
 * the owner's delivery log and redelivery, the dispatcher's start and backlog, an erasure's redaction, disabling a
 * failing endpoint.
 */
export class SqlDeliveryStore implements DeliveryStore {
  readonly #sql: StoreSql;

  constructor(sql: StoreSql) {
    this.#sql = sql;
  }

  /** A subscription's deliveries of one status, newest first, `limit` of them below `before`. */
  async pageOf(
    subscriptionId: string,
    status: WebhookDeliveryStatus,
    before: string | undefined,
    limit: number,
  ): Promise<WebhookDeliveryRow[]> {
    return this.#sql.db
      .selectFrom("webhookDeliveries")
      .selectAll()
      .where("subscriptionId", "=", subscriptionId)
      .where("status", "=", status)
      .$if(before !== undefined, (q) => q.where("id", "<", before as string))
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
  }

  /** One of a company's deliveries. */
  async getOfCompany(id: string, companyId: string): Promise<WebhookDeliveryRow | undefined> {
    return rowOfCompany(this.#sql.db, "webhookDeliveries", id, companyId);
  }

  async envelopeOf(eventId: string): Promise<string | undefined> {
    const row = await this.#sql.db
      .selectFrom("webhookEvents")
      .select("envelope")
      .where("id", "=", eventId)
      .executeTakeFirst();
    return row?.envelope;
  }

  /** A delivery's attempts, in order. */
  attemptsOf(deliveryRowId: string): Promise<WebhookAttemptRow[]> {
    return this.#sql.db
      .selectFrom("webhookAttempts")
      .selectAll()
      .where("deliveryRowId", "=", deliveryRowId)
      .orderBy("attempt")
      .execute();
  }

  async update(id: string, change: Partial<WebhookDeliveryRow>): Promise<void> {
    await this.#sql.db.updateTable("webhookDeliveries").set(change).where("id", "=", id).execute();
  }

  /**
   * Resets a subscription's deliveries created in [from, to] with these statuses (never a pending one) to `change`;
   * the time range as an id range (ids carry their creation time) runs on the (subscription, status, id) index.
   */
  async resetRange(
    subscriptionId: string,
    statuses: WebhookDeliveryStatus[],
    from: Date,
    to: Date,
    change: Partial<WebhookDeliveryRow>,
  ): Promise<number> {
    if (statuses.length === 0) return 0;
    const result = await this.#sql.db
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
  }

  /**
   * At a dispatcher's start: `delivering` rows (a previous process's) are pending again. Per subscription, so the
   * (subscription, status, id) index finds them without reading the whole table.
   */
  async resumeDelivering(): Promise<void> {
    await this.#sql.db
      .updateTable("webhookDeliveries")
      .set({ status: "pending" })
      .where("subscriptionId", "in", (eb) => eb.selectFrom("webhookSubscriptions").select("id"))
      .where("status", "=", "delivering")
      .execute();
  }

  /** The earliest due time of every subscription with pending work (on the partial pending index). */
  async backlog(): Promise<{ subscriptionId: string; due: number | null }[]> {
    const rows = await this.#sql.db
      .selectFrom("webhookDeliveries")
      .select((eb) => ["subscriptionId", eb.fn.min("nextAttemptAt").as("due")])
      .where(PENDING)
      .groupBy("subscriptionId")
      .execute();
    return rows.map((r) => ({ subscriptionId: r.subscriptionId, due: r.due === null ? null : Number(r.due) }));
  }

  /** Disables an active subscription (its endpoint failed too long, or answered 410 Gone). */
  async disableSubscription(subscriptionId: string, reason: string, nowIso: string): Promise<void> {
    await this.#sql.db
      .updateTable("webhookSubscriptions")
      .set({ status: "disabled", disabledReason: reason, disabledAt: nowIso, updatedAt: nowIso })
      .where("id", "=", subscriptionId)
      .where("status", "=", "active")
      .execute();
  }

  /** An erasure's step over the person's deliveries (erasure.ts). */
  eraseDeliveries(
    companyId: string,
    prefixes: readonly string[],
    redact: (envelope: string) => string | undefined,
  ): Promise<{ webhookEvents: number; pendingDeliveries: number }> {
    return eraseDeliveries(this.#sql, companyId, prefixes, redact);
  }
}
