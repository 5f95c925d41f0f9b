import { bigint, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/** PostgreSQL twin of `../schema/platform-deliveries.ts`. */
export const platformDeliveries = pgTable(
  "platform_deliveries",
  {
    companyId: text("company_id").notNull(),
    deliveryId: text("delivery_id").notNull(),
    /** Unix seconds: bigint, so it does not end in 2038 as a 32-bit integer would. */
    keepUntil: bigint("keep_until", { mode: "number" }).notNull(),
  },
  (t) => [
    // The insert that reports whether a delivery id is new (the primary key).
    primaryKey({ columns: [t.companyId, t.deliveryId] }),
    // The purge of expired delivery ids.
    index("platform_deliveries_keep_until_idx").on(t.keepUntil),
  ],
);
