import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { epochMs } from "./epoch-ms.js";
import { profileVersions } from "./profile-versions.js";
import { reference } from "./reference.js";
import { vendorKeys } from "./vendor-keys.js";

/**
 * A vendor's webhook subscription (docs/webhooks-gateway.md; §2.10 leaves the record's fields open): it belongs to one vendor key —
 * "the vendor" — and receives only events about that vendor's own bookings, leads and submissions (§1). The secrets
 * are a sealed `SecretRingState` (§6.5: versions, current, pending); an optional published outbound profile version
 * maps the §6.1 envelope into the vendor's native body.
 */
export const webhookSubscriptions = sqliteTable(
  "webhook_subscriptions",
  {
    id: text("id").primaryKey(),
    companyId: reference("company_id", () => companies.id),
    vendorKeyId: reference("vendor_key_id", () => vendorKeys.id),
    url: text("url").notNull(),
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    /** AES-256-GCM sealed `SecretRingState`, bound to this row's id. Never shown; each secret is shown once. */
    sealedSecrets: text("sealed_secrets").notNull(),
    outboundProfileVersionId: text("outbound_profile_version_id").references(() => profileVersions.id),
    status: text("status", { enum: ["active", "disabled"] }).notNull(),
    /** Why it was disabled (410 Gone, sustained failure, the owner), shown to the owner. */
    disabledReason: text("disabled_reason"),
    disabledAt: text("disabled_at"),
    /** Failed attempts since the last success; while above 0 the endpoint gets one request at a time. */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /** When the current run of failures began (ms); sustained failure past a limit disables the subscription. */
    failingSince: epochMs("failing_since"),
    /** No attempt before this time (ms): the endpoint's Retry-After. */
    pausedUntil: epochMs("paused_until"),
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
