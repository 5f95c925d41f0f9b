import { bigint, index, integer, json, pgTable, text } from "drizzle-orm/pg-core";
import { companies } from "./companies.js";
import { profileVersions } from "./profile-versions.js";
import { vendorKeys } from "./vendor-keys.js";

/** PostgreSQL twin of `../schema/webhook-subscriptions.ts`; epoch-millisecond columns are `bigint` read as numbers. */
export const webhookSubscriptions = pgTable(
  "webhook_subscriptions",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    vendorKeyId: text("vendor_key_id")
      .notNull()
      .references(() => vendorKeys.id),
    url: text("url").notNull(),
    events: json("events").$type<string[]>().notNull(),
    sealedSecrets: text("sealed_secrets").notNull(),
    outboundProfileVersionId: text("outbound_profile_version_id").references(() => profileVersions.id),
    status: text("status", { enum: ["active", "disabled"] }).notNull(),
    disabledReason: text("disabled_reason"),
    disabledAt: text("disabled_at"),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    failingSince: bigint("failing_since", { mode: "number" }),
    pausedUntil: bigint("paused_until", { mode: "number" }),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // Owner API: a company's subscriptions.
    index("webhook_subscriptions_company_idx").on(t.companyId),
    // Fan-out: the active subscriptions of one vendor key.
    index("webhook_subscriptions_key_status_idx").on(t.vendorKeyId, t.status),
  ],
);
