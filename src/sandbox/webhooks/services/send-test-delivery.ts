import { buildEnvelope, newEventId } from "../../../contract/webhook-envelope.js";
import { isoAt } from "../../clock.js";
import { dataFor } from "../../events/audience.js";
import { TEST_EVENT } from "../catalogue.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { enqueueDelivery } from "../enqueue-delivery.js";
import { type DeliveryView, deliveryViews } from "./delivery-view.js";
import { ownSubscription } from "./subscription-view.js";

/**
 * `POST /partner-api/webhooks/{id}/test`: an `install.test` delivery on demand (§6.7), whatever events the
 * subscription chose, with `resource: {type: "subscription", id, version}` (§6.1). Signed, retried and logged like
 * any other; it is not a platform event, so it is not in the event outbox.
 */
export function sendTestDelivery({ ctx, input }: { ctx: ConsoleCtx; input: { id: string } }): DeliveryView {
  const subscription = ownSubscription(ctx, ctx.owner, input.id);
  const envelope = buildEnvelope({
    id: newEventId(),
    event: TEST_EVENT,
    occurredAt: isoAt(ctx.clock),
    resource: { type: "subscription", id: subscription.id, version: subscription.version },
    // Every partner type's view of the test (events/audience.ts) is the same two fields.
    data: dataFor(TEST_EVENT, subscription.partnerType, 1, {
      subscriptionId: subscription.id,
      message: "test delivery; safe to ignore",
    }) ?? { subscriptionId: subscription.id },
  });
  const row = enqueueDelivery(ctx.db, ctx.clock, {
    subscriptionId: subscription.id,
    eventId: envelope.id,
    event: TEST_EVENT,
    body: JSON.stringify(envelope),
  });
  ctx.wake();
  const [view] = deliveryViews(ctx, [row]);
  if (!view) throw new Error("the delivery just queued could not be read back");
  return view;
}
