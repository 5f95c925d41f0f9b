import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { epochMs } from "./epoch-ms.js";
import { reference } from "./reference.js";
import { webhookSubscriptions } from "./webhook-subscriptions.js";

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
    subscriptionId: reference("subscription_id", () => webhookSubscriptions.id, { onDelete: "cascade" }),
    /** The event (webhook_events, where its envelope is stored once for every subscription). */
    eventId: text("event_id").notNull(),
    event: text("event").notNull(),
    /** What this delivery stands for (one appointment change, one submission outcome, one platform event). */
    dedupeKey: text("dedupe_key").notNull(),
    /** The platform event it relays, if any. */
    sourceEventId: text("source_event_id"),
    /** The exact bytes sent on every attempt: the envelope, or the outbound profile's mapping of it (made once). */
    body: text("body"),
    profileVersionId: text("profile_version_id"),
    status: text("status", { enum: ["pending", "delivering", "delivered", "failed"] }).notNull(),
    /** Attempts ever made (numbering of webhook_attempts). */
    attempts: integer("attempts").notNull().default(0),
    /** Position in the retry schedule; a redelivery starts a new round at 0. */
    retryIndex: integer("retry_index").notNull().default(0),
    nextAttemptAt: epochMs("next_attempt_at").notNull(),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
    /** Milliseconds at enqueue, for event-to-delivery latency. */
    createdAtMs: epochMs("created_at_ms").notNull(),
    deliveredAt: text("delivered_at"),
    failedAt: text("failed_at"),
  },
  (t) => [
    // Each change reaches a subscription once: the gateway's own confirmation and the platform's report of the same
    // appointment change share a key, and so do repeated calls of the forwarding hook (INSERT … ON CONFLICT DO NOTHING).
    // The key leads so that the rows of one event's fan-out, which share it, land in one leaf page (bench:fanout).
    uniqueIndex("webhook_deliveries_dedupe_subscription_uq").on(t.dedupeKey, t.subscriptionId),
    // Dispatcher: a subscription's due pending deliveries, oldest first; the backlog loaded at start. Partial: a few
    // pages, not one per subscription (queries must say `status = 'pending'` literally to use it).
    index("webhook_deliveries_pending_subscription_next_idx")
      .on(t.subscriptionId, t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    // Owner API, per subscription: the delivery log by status newest first (ids are time-ordered), the counts by
    // status, redelivery of a time range by status (as an id range), and the cascade when a subscription is deleted.
    index("webhook_deliveries_subscription_status_id_idx").on(t.subscriptionId, t.status, t.id),
  ],
);
