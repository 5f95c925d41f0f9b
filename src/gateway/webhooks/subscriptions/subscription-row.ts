import { notFound } from "../../../http/errors.js";
import type { GatewayContext } from "../../context.js";
import type { WebhookSubscriptionRow } from "../../storage/webhooks/index.js";
import { openRing, publicRing } from "../secrets.js";

/** One of the company's subscriptions; another company's is a 404 that does not confirm it exists (§7). */
export async function getSubscriptionRow(ctx: GatewayContext, companyId: string, subscriptionId: string) {
  const row = await ctx.webhooks.subscriptions.getOfCompany(subscriptionId, companyId);
  if (!row) throw notFound();
  return row;
}

/** What the owner sees of a subscription: everything but its secrets (versions only). */
export function publicSubscription(ctx: GatewayContext, row: WebhookSubscriptionRow) {
  return {
    id: row.id,
    vendorKeyId: row.vendorKeyId,
    url: row.url,
    events: row.events,
    outboundProfileVersionId: row.outboundProfileVersionId,
    status: row.status,
    disabledReason: row.disabledReason,
    disabledAt: row.disabledAt,
    consecutiveFailures: row.consecutiveFailures,
    failingSince: row.failingSince === null ? null : new Date(row.failingSince).toISOString(),
    pausedUntil: row.pausedUntil === null ? null : new Date(row.pausedUntil).toISOString(),
    secrets: publicRing(openRing(ctx, row.sealedSecrets, row.id)),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Deliveries of a subscription by status (pending, delivering, delivered, failed = the dead letter). */
export async function deliveryCounts(ctx: GatewayContext, subscriptionId: string) {
  const counts = await ctx.webhooks.subscriptions.deliveryCounts(subscriptionId);
  return {
    pending: counts.pending ?? 0,
    delivering: counts.delivering ?? 0,
    delivered: counts.delivered ?? 0,
    failed: counts.failed ?? 0,
  };
}
