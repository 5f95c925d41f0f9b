import { eq } from "drizzle-orm";
import { webhookSubscriptions } from "../../../db/schema/index.js";
import type { GatewayContext } from "../../context.js";
import { getSubscriptionRow } from "./subscription-row.js";

/** Deletes a subscription with its deliveries and attempts (cascade); pending deliveries are never sent. */
export function deleteSubscription({
  ctx,
  companyId,
  subscriptionId,
}: {
  ctx: GatewayContext;
  companyId: string;
  subscriptionId: string;
}) {
  const row = getSubscriptionRow(ctx, companyId, subscriptionId);
  ctx.db.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, row.id)).run();
  return { deleted: true, id: row.id };
}
