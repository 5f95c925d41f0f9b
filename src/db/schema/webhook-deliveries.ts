import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { webhookSubscriptions } from "./webhook-subscriptions.js";

export type WebhookDeliveryStatus = "pending" | "delivering" | "delivered" | "failed";

/**
 * One event for one subscription, with its retries (DESIGN "delivery"). Written in the transaction that produces the
 * event, so a crash loses none; `failed` is the dead letter, which the owner can redeliver. The envelope keeps its
 * `evt_` id on every attempt (§6.1); each attempt gets a new `x-svc-delivery-id` (§6.2, webhook_attempts).
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    event: text("event").notNull(),
    /** What this delivery stands for (one appointment change, one submission outcome, one platform event). */
    dedupeKey: text("dedupe_key").notNull(),
    /** The platform event it relays, if any. */
    sourceEventId: text("source_event_id"),
    /** The §6.1 envelope as JSON text. */
    envelope: text("envelope").notNull(),
    /** The exact bytes sent on every attempt: the envelope, or the outbound profile's mapping of it (made once). */
    body: text("body"),
    profileVersionId: text("profile_version_id"),
    status: text("status", { enum: ["pending", "delivering", "delivered", "failed"] }).notNull(),
    /** Attempts ever made (numbering of webhook_attempts). */
    attempts: integer("attempts").notNull().default(0),
    /** Position in the retry schedule; a redelivery starts a new round at 0. */
    retryIndex: integer("retry_index").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
    /** Milliseconds at enqueue, for event-to-delivery latency. */
    createdAtMs: integer("created_at_ms").notNull(),
    deliveredAt: text("delivered_at"),
    failedAt: text("failed_at"),
  },
  (t) => [
    // Each change reaches a subscription once: the gateway's own confirmation and the platform's report of the same
    // appointment change share a key, and so do repeated calls of the forwarding hook (INSERT … ON CONFLICT DO NOTHING).
    uniqueIndex("webhook_deliveries_subscription_dedupe_uq").on(t.subscriptionId, t.dedupeKey),
    // Dispatcher: the due pending deliveries of one subscription, oldest due first; and the per-subscription backlog
    // loaded at start.
    index("webhook_deliveries_status_subscription_next_idx").on(t.status, t.subscriptionId, t.nextAttemptAt),
    // Owner delivery log of a subscription, newest first (ids are time-ordered).
    index("webhook_deliveries_subscription_id_idx").on(t.subscriptionId, t.id),
    // Dead letter of a subscription, and redelivery of a time range by status.
    index("webhook_deliveries_subscription_status_created_idx").on(t.subscriptionId, t.status, t.createdAt),
  ],
);

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
