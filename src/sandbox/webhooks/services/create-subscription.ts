import { eq } from "drizzle-orm";
import { SecretRing } from "../../../contract/secret-ring.js";
import { badRequest } from "../../../http/errors.js";
import { newId } from "../../../ids.js";
import { validateWebhookUrl } from "../../../net/index.js";
import { isoAt } from "../../clock.js";
import { apiKeys, type PartnerType, webhookSubscriptions } from "../../db/schema/index.js";
import { isCatalogueEvent, PARTNER_EVENTS } from "../catalogue.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { newWebhookSecret } from "../secrets.js";
import { type SubscriptionView, subscriptionView } from "./subscription-view.js";

export interface NewSubscription {
  url: string;
  events: string[];
  partnerType: PartnerType;
  partnerKeyIds: string[];
}

export interface CreatedSubscription extends SubscriptionView {
  /** §6.5.1: shown once; version 1 signs the first deliveries. */
  secret: string;
  secretVersion: number;
}

/**
 * §4.3 `POST /partner-api/webhooks`. The URL must pass the delivery rules (sandbox policy: loopback allowed); every
 * event must be in the catalogue (§6.7) and open to the subscription's partner type (§1). The partner's keys must be
 * the company's own: events they cause are not sent back (§4.2 rule 2).
 */
export function createSubscription({ ctx, input }: { ctx: ConsoleCtx; input: NewSubscription }): CreatedSubscription {
  const check = validateWebhookUrl(input.url, { mode: "sandbox", allowList: ctx.webhooks.allowList });
  if (!check.ok) throw badRequest(`url: ${check.message}`, { field: "url", reason: check.reason });

  const unknown = input.events.filter((name) => !isCatalogueEvent(name));
  if (unknown.length > 0) {
    throw badRequest(`events: unknown events: ${unknown.join(", ")}`, { field: "events", unknown });
  }
  const allowed = PARTNER_EVENTS[input.partnerType];
  const notAllowed = input.events.filter((name) => !allowed.includes(name));
  if (notAllowed.length > 0) {
    throw badRequest(`events: not open to partner type ${input.partnerType}: ${notAllowed.join(", ")}`, {
      field: "events",
      notAllowed,
    });
  }
  const ownKeys = new Set(
    ctx.db
      .select({ keyId: apiKeys.keyId })
      .from(apiKeys)
      .where(eq(apiKeys.companyId, ctx.owner.companyId))
      .all()
      .map((k) => k.keyId),
  );
  const foreign = input.partnerKeyIds.filter((keyId) => !ownKeys.has(keyId));
  if (foreign.length > 0) {
    throw badRequest(`partnerKeyIds: not keys of this company: ${foreign.join(", ")}`, { field: "partnerKeyIds" });
  }

  const secret = newWebhookSecret();
  const now = isoAt(ctx.clock);
  const row = {
    id: newId("sub"),
    companyId: ctx.owner.companyId,
    url: check.url.href,
    events: [...new Set(input.events)],
    partnerType: input.partnerType,
    partnerKeyIds: [...new Set(input.partnerKeyIds)],
    secrets: SecretRing.first(secret).toState(),
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  ctx.db.insert(webhookSubscriptions).values(row).run();
  return { ...subscriptionView(row), secret, secretVersion: 1 };
}
