import { index, pgTable, text } from "drizzle-orm/pg-core";

/** PostgreSQL twin of `../schema/webhook-events.ts`. */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    event: text("event").notNull(),
    /** The §6.1 envelope as JSON text (text: its bytes are what is signed and sent). */
    envelope: text("envelope").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Retention purge: events older than the cutoff.
    index("webhook_events_created_idx").on(t.createdAt),
  ],
);
