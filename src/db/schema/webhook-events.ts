import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One event the gateway sends to vendors (§6.1): its envelope, stored once however many subscriptions it fans out to
 * (webhook_deliveries refers to it by `event_id`). Kept while a delivery of it may still be sent; the retention purge
 * drops it with its last delivery.
 */
export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    /** The `evt_` id, the same for every subscription and every retry. */
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    event: text("event").notNull(),
    /** The §6.1 envelope as JSON text. */
    envelope: text("envelope").notNull(),
    createdAt: text("created_at").notNull(),
    /** The `traceparent` of what produced it (a submission's settlement): its deliveries' spans join that trace. */
    traceParent: text("trace_parent"),
  },
  (t) => [
    // Retention purge: events older than the cutoff (time-ordered, so new rows append to one page).
    index("webhook_events_created_idx").on(t.createdAt),
  ],
);
