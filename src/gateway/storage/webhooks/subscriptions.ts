import { rowOfCompany, type StoreSql } from "../sql/store-sql.js";
import type { SubscriptionStore } from "./port.js";
import type { NewWebhookSubscription, WebhookSubscriptionRow } from "./row.js";

/** Vendors' webhook subscriptions: the owner's API creates, updates, rotates and deletes them. */
export class SqlSubscriptionStore implements SubscriptionStore {
  readonly #sql: StoreSql;

  constructor(sql: StoreSql) {
    this.#sql = sql;
  }

  /** One of a company's subscriptions (another company's is not found). */
  async getOfCompany(id: string, companyId: string): Promise<WebhookSubscriptionRow | undefined> {
    return rowOfCompany(this.#sql.db, "webhookSubscriptions", id, companyId);
  }

  /** A company's subscriptions (of one vendor key, if given), newest first (ids are time-ordered: D-246). */
  async listOfCompany(companyId: string, vendorKeyId?: string): Promise<WebhookSubscriptionRow[]> {
    return this.#sql.db
      .selectFrom("webhookSubscriptions")
      .selectAll()
      .where("companyId", "=", companyId)
      .$if(vendorKeyId !== undefined, (q) => q.where("vendorKeyId", "=", vendorKeyId as string))
      .orderBy("id", "desc")
      .execute();
  }

  async insert(row: NewWebhookSubscription): Promise<void> {
    await this.#sql.db.insertInto("webhookSubscriptions").values(row).execute();
  }

  async update(id: string, change: Partial<WebhookSubscriptionRow>): Promise<void> {
    await this.#sql.db.updateTable("webhookSubscriptions").set(change).where("id", "=", id).execute();
  }

  /** Its deliveries and their attempts go with it (the foreign keys cascade). */
  async delete(id: string): Promise<void> {
    await this.#sql.db.deleteFrom("webhookSubscriptions").where("id", "=", id).execute();
  }

  /** A subscription's deliveries by status, on the (subscription, status, id) index. */
  async deliveryCounts(subscriptionId: string): Promise<Record<string, number>> {
    const rows = await this.#sql.db
      .selectFrom("webhookDeliveries")
      .select((eb) => ["status", eb.fn.countAll<number | string>().as("count")])
      .where("subscriptionId", "=", subscriptionId)
      .groupBy("status")
      .execute();
    const counts: Record<string, number> = { pending: 0, delivering: 0, delivered: 0, failed: 0 };
    for (const r of rows) counts[r.status] = Number(r.count);
    return counts;
  }
}
