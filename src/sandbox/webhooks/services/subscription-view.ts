import { and, eq } from "drizzle-orm";
import { notFound } from "../../../http/errors.js";
import type { SandboxCtx } from "../../context.js";
import { type PartnerType, type WebhookSubscriptionRow, webhookSubscriptions } from "../../db/schema/index.js";
import { ringOf } from "../secrets.js";
import type { Owner } from "../session/sessions.js";

/** A subscription as the console shows it: never a secret, only versions (§6.5: a secret is shown once). */
export interface SubscriptionView {
  id: string;
  url: string;
  events: string[];
  partnerType: PartnerType;
  partnerId: string | null;
  partnerKeyIds: string[];
  schemaVersions: Record<string, number>;
  currentSecretVersion: number;
  pendingSecretVersion: number | null;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export function subscriptionView(row: WebhookSubscriptionRow): SubscriptionView {
  const ring = ringOf(row);
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    partnerType: row.partnerType,
    partnerId: row.partnerId,
    partnerKeyIds: row.partnerKeyIds,
    schemaVersions: row.schemaVersions,
    currentSecretVersion: ring.currentVersion ?? 1,
    pendingSecretVersion: ring.pendingVersion ?? null,
    version: row.version,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The owner's own subscription; another company's is 404, without saying it exists (§7). */
export function ownSubscription(ctx: SandboxCtx, owner: Owner, id: string): WebhookSubscriptionRow {
  const row = ctx.db
    .select()
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.companyId, owner.companyId)))
    .get();
  if (!row) throw notFound("subscription not found");
  return row;
}
