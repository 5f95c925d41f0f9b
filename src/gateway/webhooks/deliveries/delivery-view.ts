import type { WebhookDeliveryRow } from "../../storage/webhooks/index.js";

/** What the owner sees of a delivery (the envelope included: it is the company's own data). */
export function deliveryView(row: WebhookDeliveryRow) {
  return {
    id: row.id,
    subscriptionId: row.subscriptionId,
    eventId: row.eventId,
    event: row.event,
    sourceEventId: row.sourceEventId,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === "pending" ? new Date(row.nextAttemptAt).toISOString() : null,
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    createdAt: row.createdAt,
    deliveredAt: row.deliveredAt,
    failedAt: row.failedAt,
  };
}
