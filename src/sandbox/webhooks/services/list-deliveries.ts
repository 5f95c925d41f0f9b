import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import { type DeliveryStatus, webhookDeliveries } from "../../db/schema/index.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { type DeliveryView, deliveryViews } from "./delivery-view.js";
import { ownSubscription } from "./subscription-view.js";

export interface DeliveryPage {
  deliveries: DeliveryView[];
  /** Pass as `before` for the next (older) page; null at the end. */
  nextBefore: string | null;
}

/**
 * `GET /partner-api/webhooks/{id}/deliveries`: the delivery log, newest first, with every attempt. `status=dead_lettered`
 * is the dead letter (§6.4.2 "dead-lettered where the subscriber can see it").
 */
export function listDeliveries({
  ctx,
  input,
}: {
  ctx: ConsoleCtx;
  input: { id: string; status?: DeliveryStatus; before?: string; limit: number };
}): DeliveryPage {
  const subscription = ownSubscription(ctx, ctx.owner, input.id);
  const filters: SQL[] = [eq(webhookDeliveries.subscriptionId, subscription.id)];
  if (input.status) filters.push(eq(webhookDeliveries.status, input.status));
  if (input.before) filters.push(lt(webhookDeliveries.id, input.before));
  const rows = ctx.db
    .select()
    .from(webhookDeliveries)
    .where(and(...filters))
    .orderBy(desc(webhookDeliveries.id))
    .limit(input.limit + 1)
    .all();
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return { deliveries: deliveryViews(ctx, page), nextBefore: rows.length > input.limit && last ? last.id : null };
}
