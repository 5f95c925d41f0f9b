import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { webhookDeliveries } from "./webhook-deliveries.js";

/** PostgreSQL twin of `../schema/webhook-attempts.ts`. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    deliveryRowId: text("delivery_row_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    deliveryId: text("delivery_id").notNull(),
    secretVersion: integer("secret_version"),
    startedAt: text("started_at").notNull(),
    status: integer("status"),
    error: text("error"),
    responseExcerpt: text("response_excerpt"),
    latencyMs: integer("latency_ms").notNull(),
  },
  (t) => [
    // The attempts of one delivery, in order (owner API).
    index("webhook_attempts_delivery_idx").on(t.deliveryRowId, t.attempt),
  ],
);
