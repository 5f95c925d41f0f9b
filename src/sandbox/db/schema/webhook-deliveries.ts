import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { webhookSubscriptions } from "./webhook-subscriptions.js";

export const DELIVERY_STATUSES = ["pending", "succeeded", "dead_lettered"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event to one subscription, with its attempts (webhook-attempts.ts). The envelope is serialised once and kept
 * here as it is, so every attempt sends the same bytes and the same `evt_` id (§6.1, §6.3.4).
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => webhookSubscriptions.id),
    eventId: text("event_id").notNull(),
    event: text("event").notNull(),
    /** The encoded §6.1 envelope, sent unchanged on every attempt. */
    body: text("body").notNull(),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull(),
    attemptCount: integer("attempt_count").notNull(),
    /** Milliseconds since the epoch of the next attempt while pending; null once settled. */
    nextAttemptAt: integer("next_attempt_at"),
    /** The delivery this one re-sends (console redeliver), if any. */
    redeliveryOf: text("redelivery_of"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // Serves the dispatcher's "pending deliveries due now, oldest first".
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
    // Serves the console's delivery log of one subscription, newest first, optionally by status.
    index("webhook_deliveries_subscription_idx").on(t.subscriptionId, t.status, t.id),
  ],
);

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
