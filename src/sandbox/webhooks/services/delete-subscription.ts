import { eq, inArray } from "drizzle-orm";
import { webhookAttempts, webhookDeliveries, webhookSubscriptions } from "../../db/schema/index.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { ownSubscription } from "./subscription-view.js";

/** `DELETE /partner-api/webhooks/{id}`: the subscription, its pending deliveries and its log go; nothing more is sent. */
export function deleteSubscription({ ctx, input }: { ctx: ConsoleCtx; input: { id: string } }): { id: string } {
  const row = ownSubscription(ctx, ctx.owner, input.id);
  ctx.db.transaction((tx) => {
    const deliveries = tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, row.id))
      .all()
      .map((d) => d.id);
    if (deliveries.length > 0) {
      tx.delete(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveries)).run();
      tx.delete(webhookDeliveries).where(inArray(webhookDeliveries.id, deliveries)).run();
    }
    tx.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, row.id)).run();
  });
  return { id: row.id };
}
