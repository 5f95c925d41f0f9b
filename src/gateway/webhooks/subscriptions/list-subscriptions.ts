import type { GatewayContext } from "../../context.js";
import { deliveryCounts, getSubscriptionRow, publicSubscription } from "./subscription-row.js";

/** A company's subscriptions, newest first, optionally of one vendor key. */
export async function listSubscriptions({
  ctx,
  companyId,
  vendorKeyId,
}: {
  ctx: GatewayContext;
  companyId: string;
  vendorKeyId?: string | undefined;
}) {
  return (await ctx.webhooks.subscriptions.listOfCompany(companyId, vendorKeyId)).map((row) =>
    publicSubscription(ctx, row),
  );
}

/** One subscription with its delivery counts (the dead letter is `failed`). */
export async function getSubscription({
  ctx,
  companyId,
  subscriptionId,
}: {
  ctx: GatewayContext;
  companyId: string;
  subscriptionId: string;
}) {
  const row = await getSubscriptionRow(ctx, companyId, subscriptionId);
  return { ...publicSubscription(ctx, row), deliveries: await deliveryCounts(ctx, row.id) };
}
