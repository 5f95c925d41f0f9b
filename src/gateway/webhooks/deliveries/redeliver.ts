import { conflict } from "../../../http/errors.js";
import type { GatewayContext } from "../../context.js";
import type { WebhookDeliveryStatus } from "../../storage/webhooks/index.js";
import { getSubscriptionRow } from "../subscriptions/subscription-row.js";
import { deliveryView } from "./delivery-view.js";
import { getDeliveryRow } from "./list-deliveries.js";

/** What a redelivery resets: a new round of the retry schedule, due now; the body is mapped again if need be. */
function resetFields(nowMs: number) {
  return {
    status: "pending" as const,
    retryIndex: 0,
    nextAttemptAt: nowMs,
    body: null,
    failedAt: null,
    deliveredAt: null,
  };
}

async function assertActive(ctx: GatewayContext, companyId: string, subscriptionId: string): Promise<void> {
  const subscription = await getSubscriptionRow(ctx, companyId, subscriptionId);
  if (subscription.status !== "active") {
    throw conflict("the subscription is disabled: enable it before redelivering", {
      reason: subscription.disabledReason,
    });
  }
}

/**
 * Sends one delivery again (from the dead letter, or one the vendor lost): same event id (§6.1), new attempts. A
 * delivery still pending or in flight is already on its way (409).
 */
export async function redeliverDelivery({
  ctx,
  companyId,
  deliveryId,
}: {
  ctx: GatewayContext;
  companyId: string;
  deliveryId: string;
}) {
  const row = await getDeliveryRow(ctx, companyId, deliveryId);
  if (row.status === "pending" || row.status === "delivering") throw conflict(`the delivery is already ${row.status}`);
  await assertActive(ctx, companyId, row.subscriptionId);
  const nowMs = ctx.now().getTime();
  const update = resetFields(nowMs);
  await ctx.webhooks.deliveries.update(row.id, update);
  ctx.running.webhookDue(row.subscriptionId, nowMs);
  return deliveryView({ ...row, ...update });
}

/** Redelivers a subscription's deliveries created in [from, to] with the given statuses (the dead letter by default). */
export async function redeliverRange({
  ctx,
  companyId,
  subscriptionId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  subscriptionId: string;
  input: {
    from: string;
    to: string;
    statuses?: Array<Extract<WebhookDeliveryStatus, "failed" | "delivered">> | undefined;
  };
}) {
  await assertActive(ctx, companyId, subscriptionId);
  const nowMs = ctx.now().getTime();
  const statuses = input.statuses && input.statuses.length > 0 ? input.statuses : ["failed" as const];
  const from = new Date(input.from);
  const to = new Date(input.to);
  const redelivered = await ctx.webhooks.deliveries.resetRange(subscriptionId, statuses, from, to, resetFields(nowMs));
  if (redelivered > 0) ctx.running.webhookDue(subscriptionId, nowMs);
  return { redelivered };
}
