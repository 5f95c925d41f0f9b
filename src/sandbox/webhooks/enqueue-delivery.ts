import { newId } from "../../ids.js";
import type { Clock } from "../clock.js";
import type { SandboxDb, SandboxTx } from "../db/client.js";
import { type WebhookDeliveryRow, webhookDeliveries } from "../db/schema/index.js";

export interface NewDelivery {
  subscriptionId: string;
  eventId: string;
  event: string;
  /** The encoded envelope, sent unchanged on every attempt (§6.3.4). */
  body: string;
  redeliveryOf?: string;
}

/** A pending delivery, due at once. Durable before anything is sent: a restart picks it up again. */
export function enqueueDelivery(tx: SandboxTx | SandboxDb, clock: Clock, input: NewDelivery): WebhookDeliveryRow {
  const now = clock.now();
  const at = new Date(now).toISOString();
  const row: WebhookDeliveryRow = {
    id: newId("whd", now),
    subscriptionId: input.subscriptionId,
    eventId: input.eventId,
    event: input.event,
    body: input.body,
    status: "pending",
    attemptCount: 0,
    nextAttemptAt: now,
    redeliveryOf: input.redeliveryOf ?? null,
    createdAt: at,
    updatedAt: at,
  };
  tx.insert(webhookDeliveries).values(row).run();
  return row;
}
