import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { SecretRingState } from "../../../contract/secret-ring.js";
import { companies } from "./companies.js";
import { partners } from "./partners.js";

/**
 * §1: partner types that can hold a subscription, each limited to its events and fields
 * (src/sandbox/events/audience.ts).
 */
export const PARTNER_TYPES = [
  "licensee",
  "lead_source",
  "booking_vendor",
  "installer_company",
  "distributor",
  "financing",
  "accounting",
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
    /**
     * Inherited, never chosen: the partner's type, `installer_company` for an installer company's own subscription,
     * else `licensee` (the company's own integration). A copy of a type that never changes.
     */
    partnerType: text("partner_type", { enum: PARTNER_TYPES }).notNull(),
    /** §1: the partner record the subscription is for; null for the company's (or installer company's) own. */
    partnerId: text("partner_id").references(() => partners.id),
    /** §6.1, §9.4: events whose newer payload schema this subscription opted into, by event name. */
    schemaVersions: text("schema_versions", { mode: "json" }).$type<Record<string, number>>().notNull().default({}),
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
