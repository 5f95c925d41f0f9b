import { SecretRing } from "../../../contract/secret-ring.js";
import { badRequest } from "../../../http/errors.js";
import { newId } from "../../../ids.js";
import type { GatewayContext } from "../../context.js";
import { getVendorKeyRow } from "../../keys/vendor-keys.js";
import { newWebhookSecret, sealRing } from "../secrets.js";
import { checkEndpointUrl, checkEvents, checkOutboundProfile } from "./check-input.js";
import { publicSubscription } from "./subscription-row.js";

export interface SubscriptionInput {
  vendorKeyId: string;
  url: string;
  events: string[];
  outboundProfileVersionId?: string | null | undefined;
}

/**
 * A vendor key's subscription (§4.3 "create a subscription with an endpoint URL and the wanted events"): secret
 * version 1 is made here and shown once (§6.5), sealed at rest.
 */
export async function createSubscription({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: SubscriptionInput;
}) {
  const key = await getVendorKeyRow(ctx, companyId, input.vendorKeyId);
  if (key.revokedAt) throw badRequest("vendorKeyId: the key is revoked", { field: "vendorKeyId" });
  const events = checkEvents(key.partnerType, input.events);
  const url = checkEndpointUrl(ctx, input.url);
  const outboundProfileVersionId = input.outboundProfileVersionId ?? null;
  await checkOutboundProfile(ctx, companyId, outboundProfileVersionId);

  const id = newId("whs");
  const secret = newWebhookSecret();
  const now = ctx.now().toISOString();
  const row = {
    id,
    companyId,
    vendorKeyId: key.id,
    url,
    events,
    sealedSecrets: sealRing(ctx, SecretRing.first(secret), id),
    outboundProfileVersionId,
    status: "active" as const,
    disabledReason: null,
    disabledAt: null,
    consecutiveFailures: 0,
    failingSince: null,
    pausedUntil: null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.webhooks.subscriptions.insert(row);
  ctx.log.info({ companyId, subscriptionId: id, vendorKeyId: key.id, events }, "webhook subscription created");
  return { ...publicSubscription(ctx, row), secret: { version: 1, secret } };
}
