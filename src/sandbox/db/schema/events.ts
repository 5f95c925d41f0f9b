import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";

/**
 * Outbox of platform events (§6.1 envelope fields), written in the same transaction as the change that causes them.
 * Deliveries come with the webhooks issue; `sequence` gives them a total order to resume from.
 */
export const events = sqliteTable(
  "events",
  {
    sequence: integer("sequence").primaryKey({ autoIncrement: true }),
    // Unique: serves the lookup of one event by its `evt_` id (stable across delivery retries, §6.1).
    id: text("id").notNull().unique(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    /**
     * A partner company the event is also addressed to, beside its own company: the installer company of an
     * install.* event (§1: only jobs assigned to it, only while assigned).
     */
    partnerCompanyId: text("partner_company_id").references(() => companies.id),
    /** The API key whose request caused the event, if any: not sent back to a subscription naming it (§4.2 rule 2). */
    originKeyId: text("origin_key_id"),
    event: text("event").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    resourceVersion: integer("resource_version").notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    occurredAt: text("occurred_at").notNull(),
  },
  (t) => [
    // Serves "events of one company after sequence N" (per-company delivery, admin event list filtered by company).
    index("events_company_sequence_idx").on(t.companyId, t.sequence),
  ],
);

export type EventRow = typeof events.$inferSelect;
