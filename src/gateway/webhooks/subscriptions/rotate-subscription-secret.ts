import { DEFAULT_OVERLAP_SECONDS } from "../../../contract/secret-ring.js";
import { unixSeconds } from "../../../contract/signing.js";
import { conflict } from "../../../http/errors.js";
import type { GatewayContext } from "../../context.js";
import { newWebhookSecret, openRing, sealRing } from "../secrets.js";
import { getSubscriptionRow, publicSubscription } from "./subscription-row.js";

/**
 * §6.5.1 (as §4.3 `rotate-secret`): a pending secret with the next version, shown once; deliveries stay signed with
 * the current version until it is activated.
 */
export async function rotateSubscriptionSecret({
  ctx,
  companyId,
  subscriptionId,
}: {
  ctx: GatewayContext;
  companyId: string;
  subscriptionId: string;
}) {
  const row = await getSubscriptionRow(ctx, companyId, subscriptionId);
  const secret = newWebhookSecret();
  const ring = openRing(ctx, row.sealedSecrets, row.id).rotate(secret);
  const pendingSecretVersion = ring.pendingVersion ?? null;
  const sealedSecrets = sealRing(ctx, ring, row.id);
  const updatedAt = ctx.now().toISOString();
  await ctx.webhooks.subscriptions.update(row.id, { sealedSecrets, updatedAt });
  return { pendingSecretVersion, secret, subscription: publicSubscription(ctx, { ...row, sealedSecrets, updatedAt }) };
}

/**
 * §6.5.3 (as §4.3 `activate-secret` `{pendingSecretVersion}`): new attempts are signed with it. The previous version
 * is listed until the overlap ends so the owner can tell the vendor how long to keep it.
 */
export async function activateSubscriptionSecret({
  ctx,
  companyId,
  subscriptionId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  subscriptionId: string;
  input: { pendingSecretVersion: number; overlapSeconds?: number | undefined };
}) {
  const row = await getSubscriptionRow(ctx, companyId, subscriptionId);
  const ring = openRing(ctx, row.sealedSecrets, row.id);
  if (ring.pendingVersion !== input.pendingSecretVersion) {
    throw conflict(`version ${input.pendingSecretVersion} is not the pending version`, {
      field: "pendingSecretVersion",
    });
  }
  const nowSeconds = unixSeconds(ctx.now().getTime());
  const activated = ring
    .activate(input.pendingSecretVersion, nowSeconds, input.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS)
    .prune(nowSeconds);
  const sealedSecrets = sealRing(ctx, activated, row.id);
  const updatedAt = ctx.now().toISOString();
  await ctx.webhooks.subscriptions.update(row.id, { sealedSecrets, updatedAt });
  return publicSubscription(ctx, { ...row, sealedSecrets, updatedAt });
}
