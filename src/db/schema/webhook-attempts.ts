import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { reference } from "./reference.js";
import { webhookDeliveries } from "./webhook-deliveries.js";

/** One attempt of a delivery: its own `x-svc-delivery-id` (§6.2), the secret version, what came back and when. */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    deliveryRowId: reference("delivery_row_id", () => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    deliveryId: text("delivery_id").notNull(),
    secretVersion: integer("secret_version"),
    startedAt: text("started_at").notNull(),
    /** HTTP status; null when no response came (timeout, refused connection, SSRF guard, mapping failure). */
    status: integer("status"),
    error: text("error"),
    /** The start of the endpoint's answer (at most 1 KiB), for the owner's diagnosis. */
    responseExcerpt: text("response_excerpt"),
    latencyMs: integer("latency_ms").notNull(),
  },
  (t) => [
    // The attempts of one delivery, in order (owner API).
    index("webhook_attempts_delivery_idx").on(t.deliveryRowId, t.attempt),
  ],
);
