import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { webhookDeliveries } from "./webhook-deliveries.js";

/**
 * Each attempt of a delivery: the `x-svc-delivery-id` it carried (§6.2: unique per attempt), the secret version that
 * signed it, and what came back (§6.4).
 */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    /** The `x-svc-delivery-id` of this attempt (`dlv_…`). */
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id),
    attempt: integer("attempt").notNull(),
    secretVersion: integer("secret_version").notNull(),
    timestamp: integer("timestamp").notNull(),
    /** HTTP status, or null when nothing usable came back (timeout, refused, network). */
    responseStatus: integer("response_status"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    attemptedAt: text("attempted_at").notNull(),
  },
  (t) => [
    // Serves the attempts of one delivery in order (console delivery log).
    index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt),
  ],
);

export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
