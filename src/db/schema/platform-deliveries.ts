import { index, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { epochMs } from "./epoch-ms.js";

/**
 * §6.3.2 "de-duplicate": delivery ids of the platform's deliveries, kept until their copies would fail the timestamp
 * check anyway (`keepUntil`, Unix seconds), then purged.
 */
export const platformDeliveries = sqliteTable(
  "platform_deliveries",
  {
    companyId: text("company_id").notNull(),
    deliveryId: text("delivery_id").notNull(),
    keepUntil: epochMs("keep_until").notNull(),
  },
  (t) => [
    // The insert that reports whether a delivery id is new (the primary key).
    primaryKey({ columns: [t.companyId, t.deliveryId] }),
    // The purge of expired delivery ids.
    index("platform_deliveries_keep_until_idx").on(t.keepUntil),
  ],
);
