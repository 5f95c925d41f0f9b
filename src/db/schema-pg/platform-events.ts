import { index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/** PostgreSQL twin of `../schema/platform-events.ts`. */
export const platformEvents = pgTable(
  "platform_events",
  {
    companyId: text("company_id").notNull(),
    id: text("id").notNull(),
    event: text("event").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    resourceVersion: integer("resource_version").notNull(),
    occurredAt: text("occurred_at").notNull(),
    /** The body exactly as received (text, not JSON: its bytes are kept). */
    body: text("body").notNull(),
    deliveryId: text("delivery_id").notNull(),
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
