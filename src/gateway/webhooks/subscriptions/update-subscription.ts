import type { GatewayContext } from "../../context.js";
import { getVendorKeyRow } from "../../keys/vendor-keys.js";
import type { WebhookSubscriptionRow } from "../../storage/webhooks/index.js";
import { checkEndpointUrl, checkEvents, checkOutboundProfile } from "./check-input.js";
import { getSubscriptionRow, publicSubscription } from "./subscription-row.js";

export interface SubscriptionUpdate {
  url?: string | undefined;
  events?: string[] | undefined;
  outboundProfileVersionId?: string | null | undefined;
  /** `active` re-enables a disabled subscription (clearing its failure record); `disabled` pauses deliveries. */
  status?: "active" | "disabled" | undefined;
}

/** Changes a subscription; re-enabling resumes its pending deliveries at once. */
export async function updateSubscription({
  ctx,
  companyId,
  subscriptionId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  subscriptionId: string;
  input: SubscriptionUpdate;
}) {
  const row = await getSubscriptionRow(ctx, companyId, subscriptionId);
  const now = ctx.now();
  const update: Partial<WebhookSubscriptionRow> = { updatedAt: now.toISOString() };
  if (input.url !== undefined) update.url = checkEndpointUrl(ctx, input.url);
  if (input.events !== undefined) {
    update.events = checkEvents((await getVendorKeyRow(ctx, companyId, row.vendorKeyId)).partnerType, input.events);
  }
  if (input.outboundProfileVersionId !== undefined) {
    await checkOutboundProfile(ctx, companyId, input.outboundProfileVersionId);
    update.outboundProfileVersionId = input.outboundProfileVersionId;
  }
  if (input.status === "active" && row.status !== "active") {
    Object.assign(update, {
      status: "active",
      disabledReason: null,
      disabledAt: null,
      consecutiveFailures: 0,
      failingSince: null,
      pausedUntil: null,
    });
  } else if (input.status === "disabled" && row.status !== "disabled") {
    Object.assign(update, {
      status: "disabled",
      disabledReason: "disabled by the owner",
      disabledAt: now.toISOString(),
    });
  }
  await ctx.webhooks.subscriptions.update(row.id, update);
  const updated = { ...row, ...update };
  if (updated.status === "active") ctx.running.webhookDue(row.id, now.getTime());
  return publicSubscription(ctx, updated);
}
