import type { GatewayContext } from "../../context.js";
import { getSubscriptionRow } from "./subscription-row.js";

/** Deletes a subscription with its deliveries and attempts (cascade); pending deliveries are never sent. */
export async function deleteSubscription({
  ctx,
  companyId,
  subscriptionId,
}: {
  ctx: GatewayContext;
  companyId: string;
  subscriptionId: string;
}) {
  const row = await getSubscriptionRow(ctx, companyId, subscriptionId);
  await ctx.webhooks.subscriptions.delete(row.id);
  return { deleted: true as const, id: row.id };
}
