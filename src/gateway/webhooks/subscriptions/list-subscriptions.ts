import { and, desc, eq } from "drizzle-orm";
import { webhookSubscriptions } from "../../../db/schema/index.js";
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
  return ctx.db
    .select()
    .from(webhookSubscriptions)
    .where(
      and(
        eq(webhookSubscriptions.companyId, companyId),
        vendorKeyId ? eq(webhookSubscriptions.vendorKeyId, vendorKeyId) : undefined,
      ),
    )
    .orderBy(desc(webhookSubscriptions.id))
    .all()
    .map((row) => publicSubscription(ctx, row));
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
