import { and, desc, eq, sql } from "drizzle-orm";
import { webhookDeliveries, webhookSubscriptions } from "../../../db/schema/index.js";
import type { StorageHandles } from "../handles.js";

export type { WebhookSubscriptionRow } from "../../../db/schema/webhook-subscriptions.js";

type Row = typeof webhookSubscriptions.$inferSelect;

/** Vendors' webhook subscriptions: the owner's API creates, updates, rotates and deletes them. */
export class SubscriptionStore {
  readonly #db: StorageHandles["db"];

  constructor(handles: StorageHandles) {
    this.#db = handles.db;
  }

  /** One of a company's subscriptions (another company's is not found). */
  getOfCompany(id: string, companyId: string): Row | undefined {
    return this.#db
      .select()
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.companyId, companyId)))
      .get();
  }

  /** A company's subscriptions (of one vendor key, if given), newest first. */
  listOfCompany(companyId: string, vendorKeyId?: string): Row[] {
    return this.#db
      .select()
      .from(webhookSubscriptions)
      .where(
        and(
          eq(webhookSubscriptions.companyId, companyId),
          vendorKeyId ? eq(webhookSubscriptions.vendorKeyId, vendorKeyId) : undefined,
        ),
      )
      .orderBy(desc(webhookSubscriptions.id))
      .all();
  }

  insert(row: typeof webhookSubscriptions.$inferInsert): void {
    this.#db.insert(webhookSubscriptions).values(row).run();
  }

  update(id: string, change: Partial<Row>): void {
    this.#db.update(webhookSubscriptions).set(change).where(eq(webhookSubscriptions.id, id)).run();
  }

  delete(id: string): void {
    this.#db.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)).run();
  }

  /** A subscription's deliveries by status. */
  deliveryCounts(subscriptionId: string): Record<string, number> {
    const rows = this.#db
      .select({ status: webhookDeliveries.status, count: sql<number>`count(*)` })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, subscriptionId))
      .groupBy(webhookDeliveries.status)
      .all();
    const counts: Record<string, number> = { pending: 0, delivering: 0, delivered: 0, failed: 0 };
    for (const r of rows) counts[r.status] = r.count;
    return counts;
  }
}
