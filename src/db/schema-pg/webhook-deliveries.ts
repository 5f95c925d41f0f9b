import { sql } from "drizzle-orm";
import { bigint, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { webhookSubscriptions } from "./webhook-subscriptions.js";

/** PostgreSQL twin of `../schema/webhook-deliveries.ts`; epoch-millisecond columns are `bigint` read as numbers. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    event: text("event").notNull(),
    dedupeKey: text("dedupe_key").notNull(),
    sourceEventId: text("source_event_id"),
    /** The exact bytes sent on every attempt (text, not JSON). */
    body: text("body"),
    profileVersionId: text("profile_version_id"),
    status: text("status", { enum: ["pending", "delivering", "delivered", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    retryIndex: integer("retry_index").notNull().default(0),
    nextAttemptAt: bigint("next_attempt_at", { mode: "number" }).notNull(),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
    createdAtMs: bigint("created_at_ms", { mode: "number" }).notNull(),
    deliveredAt: text("delivered_at"),
    failedAt: text("failed_at"),
  },
  (t) => [
    // Each change reaches a subscription once (INSERT … ON CONFLICT DO NOTHING).
    uniqueIndex("webhook_deliveries_dedupe_subscription_uq").on(t.dedupeKey, t.subscriptionId),
    // Dispatcher: the due pending deliveries of one subscription; partial (queries say `status = 'pending'`).
    index("webhook_deliveries_pending_subscription_next_idx")
      .on(t.subscriptionId, t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    // Owner API, per subscription: the delivery log by status, counts, redelivery, the cascade.
    index("webhook_deliveries_subscription_status_id_idx").on(t.subscriptionId, t.status, t.id),
  ],
);
