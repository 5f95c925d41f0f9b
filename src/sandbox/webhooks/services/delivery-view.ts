import { asc, inArray } from "drizzle-orm";
import type { SandboxCtx } from "../../context.js";
import { type DeliveryStatus, type WebhookDeliveryRow, webhookAttempts } from "../../db/schema/index.js";

export interface AttemptView {
  /** The `x-svc-delivery-id` this attempt carried (§6.2). */
  deliveryId: string;
  attempt: number;
  secretVersion: number;
  timestamp: number;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
}

export interface DeliveryView {
  id: string;
  subscriptionId: string;
  eventId: string;
  event: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: string | null;
  redeliveryOf: string | null;
  createdAt: string;
  updatedAt: string;
  attempts: AttemptView[];
}

/** Deliveries with their attempts in order, for the console's delivery log and dead letter. */
export function deliveryViews(ctx: SandboxCtx, rows: WebhookDeliveryRow[]): DeliveryView[] {
  const ids = rows.map((r) => r.id);
  const attempts =
    ids.length === 0
      ? []
      : ctx.db
          .select()
          .from(webhookAttempts)
          .where(inArray(webhookAttempts.deliveryId, ids))
          .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt))
          .all();
  return rows.map((row) => ({
    id: row.id,
    subscriptionId: row.subscriptionId,
    eventId: row.eventId,
    event: row.event,
    status: row.status,
    attemptCount: row.attemptCount,
    nextAttemptAt: row.nextAttemptAt === null ? null : new Date(row.nextAttemptAt).toISOString(),
    redeliveryOf: row.redeliveryOf,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    attempts: attempts
      .filter((a) => a.deliveryId === row.id)
      .map((a) => ({
        deliveryId: a.id,
        attempt: a.attempt,
        secretVersion: a.secretVersion,
        timestamp: a.timestamp,
        responseStatus: a.responseStatus,
        error: a.error,
        durationMs: a.durationMs,
        attemptedAt: a.attemptedAt,
      })),
  }));
}
