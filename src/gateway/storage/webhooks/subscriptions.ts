import { and, desc, eq, sql } from "drizzle-orm";
import { webhookDeliveries, webhookSubscriptions } from "../../../db/schema/index.js";
import type { StorageHandles } from "../handles.js";
import type { GateView } from "../sqlite-gate.js";
import type { SubscriptionStore } from "./port.js";

export type { WebhookSubscriptionRow } from "../../../db/schema/webhook-subscriptions.js";
export type NewWebhookSubscription = typeof webhookSubscriptions.$inferInsert;

type Row = typeof webhookSubscriptions.$inferSelect;

/** Vendors' webhook subscriptions: the owner's API creates, updates, rotates and deletes them. */
export class SqliteSubscriptionStore implements SubscriptionStore {
  readonly #db: StorageHandles["db"];

  readonly #gate: GateView;

  constructor(handles: StorageHandles) {
    this.#gate = handles.gate;
    this.#db = handles.db;
  }

  /** One of a company's subscriptions (another company's is not found). */
  async getOfCompany(id: string, companyId: string): Promise<Row | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.companyId, companyId)))
      .get();
  }

  /** A company's subscriptions (of one vendor key, if given), newest first. */
  async listOfCompany(companyId: string, vendorKeyId?: string): Promise<Row[]> {
    while (this.#gate.busy) await this.#gate.pass();
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

  async insert(row: typeof webhookSubscriptions.$inferInsert): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.insert(webhookSubscriptions).values(row).run();
  }

  async update(id: string, change: Partial<Row>): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.update(webhookSubscriptions).set(change).where(eq(webhookSubscriptions.id, id)).run();
  }

  async delete(id: string): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)).run();
  }

  /** A subscription's deliveries by status. */
  async deliveryCounts(subscriptionId: string): Promise<Record<string, number>> {
    while (this.#gate.busy) await this.#gate.pass();
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
