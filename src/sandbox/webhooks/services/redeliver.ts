import { and, eq } from "drizzle-orm";
import { conflict, notFound } from "../../../http/errors.js";
import { webhookDeliveries } from "../../db/schema/index.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { enqueueDelivery } from "../enqueue-delivery.js";
import { type DeliveryView, deliveryViews } from "./delivery-view.js";
import { ownSubscription } from "./subscription-view.js";

/**
 * `POST /partner-api/webhooks/{id}/deliveries/{delivery_id}/redeliver`: a new delivery of the same body — same `evt_`
 * id (§6.1), so a receiver that already processed it answers 2xx without processing it again (§6.6) — with a fresh
 * set of attempts. A delivery still being retried is 409: it will be sent anyway.
 */
export function redeliver({
  ctx,
  input,
}: {
  ctx: ConsoleCtx;
  input: { id: string; deliveryId: string };
}): DeliveryView {
  const subscription = ownSubscription(ctx, ctx.owner, input.id);
  const original = ctx.db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, input.deliveryId), eq(webhookDeliveries.subscriptionId, subscription.id)))
    .get();
  if (!original) throw notFound("delivery not found");
  if (original.status === "pending") throw conflict("delivery is still pending; it will be retried");
  const row = enqueueDelivery(ctx.db, ctx.clock, {
    subscriptionId: subscription.id,
    eventId: original.eventId,
    event: original.event,
    body: original.body,
    redeliveryOf: original.id,
  });
  ctx.wake();
  const [view] = deliveryViews(ctx, [row]);
  if (!view) throw new Error("the delivery just queued could not be read back");
  return view;
}
