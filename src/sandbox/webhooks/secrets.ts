import { randomBytes } from "node:crypto";
import { SecretRing } from "../../contract/secret-ring.js";
import type { WebhookSubscriptionRow } from "../db/schema/index.js";

/** A webhook secret: 256 random bits; the HMAC key is its UTF-8 text as shown (docs/decisions.md, Webhooks). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

export function ringOf(subscription: Pick<WebhookSubscriptionRow, "secrets">): SecretRing {
  return SecretRing.fromState(subscription.secrets);
}
