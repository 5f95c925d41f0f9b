import type { GatewayContext } from "../../context.js";
import { deliveryCounts, getSubscriptionRow, publicSubscription } from "./subscription-row.js";

/** A company's subscriptions, newest first, optionally of one vendor key. */
export function listSubscriptions({
  ctx,
  companyId,
  vendorKeyId,
}: {
  ctx: GatewayContext;
  companyId: string;
  vendorKeyId?: string | undefined;
}) {
  return ctx.webhooks.subscriptions.listOfCompany(companyId, vendorKeyId).map((row) => publicSubscription(ctx, row));
}

/** One subscription with its delivery counts (the dead letter is `failed`). */
export function getSubscription({
  ctx,
  companyId,
  subscriptionId,
}: {
  ctx: GatewayContext;
  companyId: string;
  subscriptionId: string;
}) {
  const row = getSubscriptionRow(ctx, companyId, subscriptionId);
  return { ...publicSubscription(ctx, row), deliveries: deliveryCounts(ctx, row.id) };
}
