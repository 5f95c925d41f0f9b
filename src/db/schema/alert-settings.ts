import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";

/**
 * A company's alert settings (docs/alerts.md): the thresholds of each condition, where each severity's notices go,
 * and the channels' addresses. A company without a row has the defaults (alerts/settings.ts). The channels' secrets —
 * Slack's and Teams' incoming-webhook URLs, which are credentials, and the operational webhook's signing secret — are
 * sealed under the master key and bound to the company's id; never shown again.
 */
export const alertSettings = sqliteTable("alert_settings", {
  companyId: text("company_id")
    .primaryKey()
    .references(() => companies.id),
  /** `{<condition>: {…its thresholds}}`, only what the owner changed from the defaults. */
  thresholds: text("thresholds", { mode: "json" }).$type<Record<string, Record<string, number | boolean>>>().notNull(),
  /** `{warning: [channel…], critical: [channel…]}`: where each severity's notices go (the console always). */
  routes: text("routes", { mode: "json" }).$type<Record<string, string[]>>().notNull(),
  /** `{email: {to: […]}, webhook: {url}}`: the channels' addresses that are no secret. */
  channels: text("channels", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  /** Sealed `{webhookSecret?, slackUrl?, teamsUrl?}`, or null. */
  sealedSecrets: text("sealed_secrets"),
  /** How long an open alert waits before it is notified again. */
  renotifyMinutes: integer("renotify_minutes").notNull(),
  updatedAt: text("updated_at").notNull(),
});
