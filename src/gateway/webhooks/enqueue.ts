import { buildEnvelope, newEventId } from "../../contract/webhook-envelope.js";
import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import type { TransactionContext } from "../storage/transaction.js";

/** One event the gateway tells one vendor (key) about. */
export interface VendorEvent {
  companyId: string;
  vendorKeyId: string;
  event: string;
  resource: { type: string; id: string; version: number };
  data: Record<string, unknown>;
  occurredAt: string;
  /**
   * What the event stands for; a subscription gets one delivery per key. The gateway's confirmation of a booking and
   * the platform's report of the same change share one, so the vendor hears of each change once.
   */
  dedupeKey: string;
  sourceEventId?: string;
  /** Only this subscription (a test delivery); otherwise every active subscription of the key wanting the event. */
  subscriptionId?: string;
  /** Only subscriptions created by then (ISO): the event happened then, and a later subscriber did not ask for it. */
  subscribedBy?: string | undefined;
  /** The trace its deliveries' spans join (a submission's settlement: docs/tracing.md); none for a platform event. */
  traceParent?: string | null | undefined;
}

export interface Enqueued {
  subscriptionId: string;
  deliveryRowId: string;
}

/**
 * Writes the deliveries of one event inside the caller's transaction, through its stores `tx` (the platform event, or
 * the forwarding outcome, and its deliveries commit together: none is lost, none is orphaned). The caller wakes the
 * dispatcher after commit with `notifyEnqueued`.
 */
export async function enqueueVendorEvent(
  tx: TransactionContext,
  input: VendorEvent,
  nowMs: number,
): Promise<Enqueued[]> {
  // A revoked key's subscriptions get nothing (read now: another process may have revoked it).
  const key = await tx.vendorKeys.get(input.vendorKeyId);
  if (!key || key.revokedAt) return [];
  const targets = (await tx.webhooks.targets(input.vendorKeyId, input.companyId)).filter(
    (s) =>
      (input.subscriptionId !== undefined ? s.id === input.subscriptionId : s.events.includes(input.event)) &&
      (input.subscribedBy === undefined || s.createdAt <= input.subscribedBy),
  );
  if (targets.length === 0) return [];

  // §6.1: one event, one `evt_` id, the same for every subscription and every retry.
  const envelope = buildEnvelope({
    id: newEventId(),
    event: input.event,
    occurredAt: input.occurredAt,
    resource: input.resource,
    data: input.data,
  });
  const createdAt = new Date(nowMs).toISOString();
  // The body is made on the first attempt: mapped when the subscription has an outbound profile (asynchronous).
  const deliveries = targets.map((target) => ({
    id: newId("whd", nowMs),
    subscriptionId: target.id,
    dedupeKey: input.dedupeKey,
    sourceEventId: input.sourceEventId ?? null,
    nextAttemptAt: nowMs,
    createdAt,
    createdAtMs: nowMs,
  }));
  // The envelope is stored once for all its deliveries, not at all when every delivery was already there.
  const inserted = new Set(
    await tx.webhooks.insertDeliveries(
      {
        id: envelope.id,
        companyId: input.companyId,
        event: input.event,
        envelope: () => JSON.stringify(envelope),
        createdAt,
        traceParent: input.traceParent,
      },
      deliveries,
    ),
  );
  return deliveries
    .filter((d) => inserted.has(d.id))
    .map((d) => ({ subscriptionId: d.subscriptionId, deliveryRowId: d.id }));
}

/** After the enqueueing transaction committed: wake the dispatcher for each subscription that got work. */
export function notifyEnqueued(ctx: GatewayContext, enqueued: readonly Enqueued[], nowMs: number): void {
  for (const e of enqueued) ctx.running.webhookDue(e.subscriptionId, nowMs);
}
