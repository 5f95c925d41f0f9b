import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * §6.6: every platform event the gateway accepted, stored (with its fan-out to vendors) in the transaction that
 * answers 2xx (§6.4.1). A row is "processed": later deliveries of the event are acknowledged and not processed again.
 */
export const platformEvents = sqliteTable(
  "platform_events",
  {
    companyId: text("company_id").notNull(),
    id: text("id").notNull(),
    event: text("event").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    resourceVersion: integer("resource_version").notNull(),
    occurredAt: text("occurred_at").notNull(),
    /** The body exactly as received. */
    body: text("body").notNull(),
    deliveryId: text("delivery_id").notNull(),
    /** How many vendor deliveries it produced. */
    fannedOut: integer("fanned_out").notNull(),
    receivedAt: text("received_at").notNull(),
  },
  (t) => [
    // §6.6 "already processed?" lookup by event id, within the company.
    primaryKey({ columns: [t.companyId, t.id] }),
    // Owner API: a company's received events, newest first.
    index("platform_events_company_received_idx").on(t.companyId, t.receivedAt),
  ],
);
