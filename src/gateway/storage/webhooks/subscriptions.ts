import { rowOfCompany, run, type StoreSql } from "../sql/store-sql.js";
import type { NewWebhookSubscription, WebhookSubscriptionRow } from "./row.js";

/** Vendors' webhook subscriptions: the owner's API creates, updates, rotates and deletes them. */
export function sqlSubscriptionStore({ db }: StoreSql) {
  return {
    getOfCompany: (id: string, companyId: string) => rowOfCompany(db, "webhookSubscriptions", id, companyId),
    /** A company's subscriptions (of one vendor key, if given), newest first (ids are time-ordered: D-246). */
    listOfCompany: (companyId: string, vendorKeyId?: string) =>
      db
        .selectFrom("webhookSubscriptions")
        .selectAll()
        .where("companyId", "=", companyId)
        .$if(vendorKeyId !== undefined, (q) => q.where("vendorKeyId", "=", vendorKeyId as string))
        .orderBy("id", "desc")
        .execute(),
    insert: (row: NewWebhookSubscription) => run(db.insertInto("webhookSubscriptions").values(row)),
    update: (id: string, change: Partial<WebhookSubscriptionRow>) =>
      run(db.updateTable("webhookSubscriptions").set(change).where("id", "=", id)),
    /** Its deliveries and their attempts go with it (the foreign keys cascade). */
    delete: (id: string) => run(db.deleteFrom("webhookSubscriptions").where("id", "=", id)),
    /** A subscription's deliveries by status, on the (subscription, status, id) index. */
    async deliveryCounts(subscriptionId: string) {
      const rows = await db
        .selectFrom("webhookDeliveries")
        .select((eb) => ["status", eb.fn.countAll<number | string>().as("count")])
        .where("subscriptionId", "=", subscriptionId)
        .groupBy("status")
        .execute();
      const counts: Record<string, number> = { pending: 0, delivering: 0, delivered: 0, failed: 0 };
      for (const r of rows) counts[r.status] = Number(r.count);
      return counts;
    },
  };
}
