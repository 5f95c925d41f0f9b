import { rowOfCompany, run, type StoreSql } from "../sql/store-sql.js";
import type { SubscriptionStore } from "./port.js";

/** Vendors' webhook subscriptions: the owner's API creates, updates, rotates and deletes them. */
export function sqlSubscriptionStore({ db }: StoreSql): SubscriptionStore {
  return {
    getOfCompany: (id, companyId) => rowOfCompany(db, "webhookSubscriptions", id, companyId),
    listOfCompany: (companyId, vendorKeyId) =>
      db
        .selectFrom("webhookSubscriptions")
        .selectAll()
        .where("companyId", "=", companyId)
        .$if(vendorKeyId !== undefined, (q) => q.where("vendorKeyId", "=", vendorKeyId as string))
        .orderBy("id", "desc")
        .execute(),
    insert: (row) => run(db.insertInto("webhookSubscriptions").values(row)),
    update: (id, change) => run(db.updateTable("webhookSubscriptions").set(change).where("id", "=", id)),
    delete: (id) => run(db.deleteFrom("webhookSubscriptions").where("id", "=", id)),
    // On the (subscription, status, id) index.
    async deliveryCounts(subscriptionId) {
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
