import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { reference } from "./reference.js";

/** The conditions an alert is opened for (gateway/alerts/conditions.ts says what each is). */
export const ALERT_CONDITIONS = [
  "mapping_failures",
  "proof_failures",
  "dead_letter_growth",
  "credential_paused",
  "subscription_disabled",
  "vendor_quiet",
  "forwarding_latency",
] as const;

/** What an alert's condition is found on. */
export const ALERT_RESOURCE_TYPES = ["vendor_key", "connection", "credential", "subscription", "company"] as const;

/**
 * An alert (docs/alerts.md): one condition found on one of a company's resources — a key's payloads failing to map, a
 * hook URL refusing forged proofs, a paused credential… — from when it was first found to when it cleared. A condition
 * that goes on is one alert whose `count` and `lastSeenAt` move, never a second row (the unique index below); a
 * cleared one stays as history, `resolved`.
 */
export const alerts = sqliteTable(
  "alerts",
  {
    id: text("id").primaryKey(),
    companyId: reference("company_id", () => companies.id),
    /** What was found (alerts/conditions.ts): `mapping_failures`, `proof_failures`, `credential_paused`, … */
    condition: text("condition", { enum: ALERT_CONDITIONS }).notNull(),
    /** The resource it was found on: `vendor_key`, `connection`, `credential`, `subscription` or `company`. */
    resourceType: text("resource_type", { enum: ALERT_RESOURCE_TYPES }).notNull(),
    resourceId: text("resource_id").notNull(),
    severity: text("severity", { enum: ["warning", "critical"] }).notNull(),
    status: text("status", { enum: ["open", "acknowledged", "resolved"] }).notNull(),
    /** How many of what the condition counts (failed payloads, refused proofs…) while it has been open. */
    count: integer("count").notNull(),
    /** What happened and what to do, in the owner's words; `link` is the console page to do it on. */
    message: text("message").notNull(),
    link: text("link").notNull(),
    openedAt: text("opened_at").notNull(),
    /** The last evaluation that still found the condition. */
    lastSeenAt: text("last_seen_at").notNull(),
    resolvedAt: text("resolved_at"),
    acknowledgedAt: text("acknowledged_at"),
    /** No notice is sent before this time (the owner muted it); the console still lists it. */
    mutedUntil: text("muted_until"),
    /** When the last notice that it is open went out (null: none yet, owed now unless muted). */
    notifiedAt: text("notified_at"),
    /** When the notice that it resolved went out (null on a resolved alert: owed, unless it never was notified). */
    resolvedNotifiedAt: text("resolved_notified_at"),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // One live alert per condition and resource (D-342): an evaluator — or two, in two processes — opening it again
    // finds it there; the evaluator also reads a company's live alerts through this index (its company prefix).
    uniqueIndex("alerts_live_uq")
      .on(t.companyId, t.condition, t.resourceType, t.resourceId)
      .where(sql`status <> 'resolved'`),
    // Owner API: a company's alerts newest first (ids are time-ordered), by status or not.
    index("alerts_company_id_idx").on(t.companyId, t.id),
    // The evaluator: resolved alerts whose "resolved" notice is still owed. Partial: a notified one leaves it.
    index("alerts_resolved_notice_owed_idx")
      .on(t.companyId)
      .where(sql`status = 'resolved' AND resolved_notified_at IS NULL AND notified_at IS NOT NULL`),
  ],
);
