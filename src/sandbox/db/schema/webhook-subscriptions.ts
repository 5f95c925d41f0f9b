import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { SecretRingState } from "../../../contract/secret-ring.js";
import { companies } from "./companies.js";

/** §1: partner types that can hold a subscription, each limited to its event groups (src/sandbox/webhooks/catalogue.ts). */
export const PARTNER_TYPES = [
  "licensee",
  "lead_source",
  "booking_vendor",
  "installer_company",
  "distributor",
  "financing",
] as const;
export type PartnerType = (typeof PARTNER_TYPES)[number];

/**
 * §4.3 subscriptions: an endpoint URL, the wanted events and the secrets by version (§6.5). The sandbox keeps its test
 * secrets in clear: it signs with them, and holds nothing but test fixtures.
 */
export const webhookSubscriptions = sqliteTable(
  "webhook_subscriptions",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    url: text("url").notNull(),
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    partnerType: text("partner_type", { enum: PARTNER_TYPES }).notNull(),
    /** The partner's own API keys: events caused by them are not sent back to it (§4.2 rule 2, "other subscribers"). */
    partnerKeyIds: text("partner_key_ids", { mode: "json" }).$type<string[]>().notNull(),
    /** §6.5: current, pending and overlapping versions. */
    secrets: text("secrets", { mode: "json" }).$type<SecretRingState>().notNull(),
    /** Starts at 1, +1 on every change (rotation, activation): resource.version of an `install.test` delivery. */
    version: integer("version").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // Serves the fan-out "subscriptions of the event's company" and the owner's subscription list.
    index("webhook_subscriptions_company_idx").on(t.companyId, t.id),
  ],
);

export type WebhookSubscriptionRow = typeof webhookSubscriptions.$inferSelect;
