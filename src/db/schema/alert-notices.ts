import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { alerts } from "./alerts.js";
import { companies } from "./companies.js";
import { epochMs } from "./epoch-ms.js";
import { reference } from "./reference.js";

/**
 * A notice of an alert owed to one channel (D-347): written with the claim that decides it is sent (the alert's
 * `notifiedAt` or `resolvedNotifiedAt` moved), deleted once the channel took it, and tried again on its schedule while
 * it did not — by any process, after a restart too. The text is made again from the alert at each try; the event id
 * stays (§6.1: a receiver recognises a repeat).
 */
export const alertNotices = sqliteTable(
  "alert_notices",
  {
    id: text("id").primaryKey(),
    companyId: reference("company_id", () => companies.id),
    alertId: reference("alert_id", () => alerts.id),
    event: text("event", { enum: ["alert.opened", "alert.resolved"] }).notNull(),
    /** §6.1: one event id per notice, the same on every channel and every try. */
    eventId: text("event_id").notNull(),
    /** An open alert notified again after the re-notify interval. */
    reminder: integer("reminder", { mode: "boolean" }).notNull(),
    channel: text("channel", { enum: ["email", "webhook", "slack", "teams"] }).notNull(),
    /** Tries that failed so far. */
    attempts: integer("attempts").notNull(),
    /** When it may be tried next; while a process tries it, the end of that try's lease (the claim moves it). */
    nextAttemptAt: epochMs("next_attempt_at").notNull(),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // The evaluator's pass over the notices due, whatever their company: a range of this index.
    index("alert_notices_due_idx").on(t.nextAttemptAt),
  ],
);
