import { and, desc, eq, sql } from "drizzle-orm";
import { webhookDeliveries, webhookSubscriptions } from "../../../../db/schema-pg/index.js";
import type { PgHandles } from "../../pg-handles.js";
import type { SubscriptionStore } from "../port.js";
import type { NewWebhookSubscription, WebhookSubscriptionRow } from "../subscriptions.js";

/** Vendors' webhook subscriptions on PostgreSQL (as ../subscriptions.ts). */
export class PostgresSubscriptionStore implements SubscriptionStore {
  readonly #db: PgHandles["db"];

  constructor(handles: PgHandles) {
    this.#db = handles.db;
  }

  async getOfCompany(id: string, companyId: string): Promise<WebhookSubscriptionRow | undefined> {
    const [row] = await this.#db
      .select()
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.companyId, companyId)));
    return row;
  }

  /** A company's subscriptions (of one vendor key, if given), newest first. */
  async listOfCompany(companyId: string, vendorKeyId?: string): Promise<WebhookSubscriptionRow[]> {
    return this.#db
      .select()
      .from(webhookSubscriptions)
      .where(
        and(
          eq(webhookSubscriptions.companyId, companyId),
          vendorKeyId ? eq(webhookSubscriptions.vendorKeyId, vendorKeyId) : undefined,
        ),
      )
      .orderBy(desc(webhookSubscriptions.id));
  }

  async insert(row: NewWebhookSubscription): Promise<void> {
    await this.#db.insert(webhookSubscriptions).values(row);
  }

  async update(id: string, change: Partial<WebhookSubscriptionRow>): Promise<void> {
    await this.#db.update(webhookSubscriptions).set(change).where(eq(webhookSubscriptions.id, id));
  }

  async delete(id: string): Promise<void> {
    await this.#db.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, id));
  }

  async deliveryCounts(subscriptionId: string): Promise<Record<string, number>> {
    const rows = await this.#db
      .select({ status: webhookDeliveries.status, count: sql<number>`count(*)::int` })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, subscriptionId))
      .groupBy(webhookDeliveries.status);
    const counts: Record<string, number> = { pending: 0, delivering: 0, delivered: 0, failed: 0 };
    for (const r of rows) counts[r.status] = r.count;
    return counts;
  }
}
