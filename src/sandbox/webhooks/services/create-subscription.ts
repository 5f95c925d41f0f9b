import { SecretRing } from "../../../contract/secret-ring.js";
import { badRequest } from "../../../http/errors.js";
import { newId } from "../../../ids.js";
import { validateWebhookUrl } from "../../../net/index.js";
import { isoAt } from "../../clock.js";
import { type PartnerType, webhookSubscriptions } from "../../db/schema/index.js";
import { audienceOf } from "../../events/audience.js";
import { isCatalogueEvent, PARTNER_EVENTS } from "../catalogue.js";
import type { ConsoleCtx } from "../console-ctx.js";
import { newWebhookSecret } from "../secrets.js";
import { subscriptionParty } from "./subscription-type.js";
import { type SubscriptionView, subscriptionView } from "./subscription-view.js";

export interface NewSubscription {
  url: string;
  events: string[];
  /** Accepted only when it is the inherited type (subscription-type.ts). */
  partnerType?: PartnerType;
  partnerId?: string;
  partnerKeyIds: string[];
  /** §9.4: event name → the schema version this subscription opts into. */
  schemaVersions?: Record<string, number>;
}

export interface CreatedSubscription extends SubscriptionView {
  /** §6.5.1: shown once; version 1 signs the first deliveries. */
  secret: string;
  secretVersion: number;
}

/**
 * §4.3 `POST /partner-api/webhooks`. The URL must pass the delivery rules (sandbox policy: loopback allowed); the
 * partner type is inherited (subscription-type.ts); every event must be in the catalogue (§6.7) and open to that type
 * (§1); a schema version opted into must exist for its event (§9.4).
 */
export function createSubscription({ ctx, input }: { ctx: ConsoleCtx; input: NewSubscription }): CreatedSubscription {
  const check = validateWebhookUrl(input.url, { mode: "sandbox", allowList: ctx.webhooks.allowList });
  if (!check.ok) throw badRequest(`url: ${check.message}`, { field: "url", reason: check.reason });

  const unknown = input.events.filter((name) => !isCatalogueEvent(name));
  if (unknown.length > 0) {
    throw badRequest(`events: unknown events: ${unknown.join(", ")}`, { field: "events", unknown });
  }
  const party = subscriptionParty(ctx, input);
  const allowed = PARTNER_EVENTS[party.partnerType];
  const notAllowed = input.events.filter((name) => !allowed.includes(name));
  if (notAllowed.length > 0) {
    throw badRequest(`events: not open to partner type ${party.partnerType}: ${notAllowed.join(", ")}`, {
      field: "events",
      notAllowed,
    });
  }
  const schemaVersions = input.schemaVersions ?? {};
  for (const [event, version] of Object.entries(schemaVersions)) {
    const latest = audienceOf(event)?.latestSchemaVersion;
    if (latest === undefined || version > latest) {
      throw badRequest(`schemaVersions: ${event} has no schema version ${version}`, { field: "schemaVersions" });
    }
  }

  const secret = newWebhookSecret();
  const now = isoAt(ctx.clock);
  const row = {
    id: newId("sub"),
    companyId: ctx.owner.companyId,
    url: check.url.href,
    events: [...new Set(input.events)],
    partnerType: party.partnerType,
    partnerId: party.partnerId,
    partnerKeyIds: party.partnerKeyIds,
    schemaVersions,
    secrets: SecretRing.first(secret).toState(),
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  ctx.db.insert(webhookSubscriptions).values(row).run();
  return { ...subscriptionView(row), secret, secretVersion: 1 };
}
