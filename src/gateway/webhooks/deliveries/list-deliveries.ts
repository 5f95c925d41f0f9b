import { notFound } from "../../../http/errors.js";
import type { GatewayContext } from "../../context.js";
import type { WebhookDeliveryStatus } from "../../storage/webhooks/index.js";
import { getSubscriptionRow } from "../subscriptions/subscription-row.js";
import { deliveryView } from "./delivery-view.js";

/** A subscription's delivery log, newest first, keyset-paginated on the (time-ordered) id; `failed` = dead letter. */
export async function listDeliveries({
  ctx,
  companyId,
  subscriptionId,
  filter,
}: {
  ctx: GatewayContext;
  companyId: string;
  subscriptionId: string;
  filter: { status?: WebhookDeliveryStatus | undefined; before?: string | undefined; limit?: number | undefined };
}) {
  await getSubscriptionRow(ctx, companyId, subscriptionId);
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
  // One query per status on the (subscription, status, id) index, merged: each reads at most a page, where one query
  // over every status would sort the subscription's whole history.
  const statuses = filter.status ? [filter.status] : DELIVERY_STATUSES;
  const pages = await Promise.all(
    statuses.map((status) => ctx.webhooks.deliveries.pageOf(subscriptionId, status, filter.before, limit + 1)),
  );
  const rows = pages
    .flat()
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { deliveries: page.map(deliveryView), nextBefore: rows.length > limit && last ? last.id : null };
}

const DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = ["pending", "delivering", "delivered", "failed"];

/** One delivery with its envelope, the body sent, and every attempt (each with its own delivery id, §6.2). */
export async function getDelivery({
  ctx,
  companyId,
  deliveryId,
}: {
  ctx: GatewayContext;
  companyId: string;
  deliveryId: string;
}) {
  const row = await getDeliveryRow(ctx, companyId, deliveryId);
  const event = await ctx.webhooks.deliveries.envelopeOf(row.eventId);
  const attempts = (await ctx.webhooks.deliveries.attemptsOf(row.id)).map(
    ({ deliveryRowId: _row, ...attempt }) => attempt,
  );
  const envelope = event !== undefined ? (JSON.parse(event) as unknown) : null;
  return { ...deliveryView(row), envelope, body: row.body, attempts };
}

/** A company's delivery by id; another company's is a 404 that does not confirm it exists (§7). */
export async function getDeliveryRow(ctx: GatewayContext, companyId: string, deliveryId: string) {
  const row = await ctx.webhooks.deliveries.getOfCompany(deliveryId, companyId);
  if (!row) throw notFound();
  return row;
}
