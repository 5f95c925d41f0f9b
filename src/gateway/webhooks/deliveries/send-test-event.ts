import { newId } from "../../../ids.js";
import type { GatewayContext } from "../../context.js";
import { TEST_EVENT } from "../catalogue.js";
import { enqueueVendorEvent, notifyEnqueued } from "../enqueue.js";
import { getSubscriptionRow } from "../subscriptions/subscription-row.js";

/**
 * An on-demand test delivery to one subscription (like §6.7 `install.test`; §6.1: a test delivery uses resource type
 * `subscription`), signed and retried like any other, visible in the delivery log.
 */
export async function sendTestEvent({
  ctx,
  companyId,
  subscriptionId,
}: {
  ctx: GatewayContext;
  companyId: string;
  subscriptionId: string;
}) {
  const subscription = await getSubscriptionRow(ctx, companyId, subscriptionId);
  const nowMs = ctx.now().getTime();
  const enqueued = await ctx.transaction((tx) =>
    enqueueVendorEvent(
      tx,
      {
        companyId,
        vendorKeyId: subscription.vendorKeyId,
        subscriptionId: subscription.id,
        event: TEST_EVENT,
        resource: { type: "subscription", id: subscription.id, version: 1 },
        data: { message: "test delivery from partner-gateway; safe to ignore" },
        occurredAt: new Date(nowMs).toISOString(),
        dedupeKey: newId("test", nowMs),
      },
      nowMs,
    ),
  );
  notifyEnqueued(ctx, enqueued, nowMs);
  const first = enqueued[0];
  return { queued: first !== undefined, deliveryId: first?.deliveryRowId ?? null };
}
