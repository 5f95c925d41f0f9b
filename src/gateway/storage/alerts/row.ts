import type { alertNotices, alertSettings, alerts } from "../../../db/schema/index.js";

/** An alert as stored: one condition on one resource of a company, from when it was found to when it cleared. */
export type AlertRow = typeof alerts.$inferSelect;
export type NewAlert = typeof alerts.$inferInsert;
export type AlertStatus = AlertRow["status"];

/** A company's alert settings as stored (its thresholds and routes as the owner changed them, its sealed secrets). */
export type AlertSettingsRow = typeof alertSettings.$inferSelect;

/** What an evaluation that still finds an alert's condition writes of it. */
export type AlertSighting = Pick<AlertRow, "count" | "message" | "link" | "lastSeenAt">;

/** What the owner's list filters by: a status, older than a cursor (ids are time-ordered). */
export interface AlertFilter {
  status?: AlertStatus | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** A notice of an alert owed to one channel until the channel takes it (D-347). */
export type AlertNoticeRow = typeof alertNotices.$inferSelect;
export type NewAlertNotice = typeof alertNotices.$inferInsert;

/** How a try of an owed notice ended, written under the try's claim. */
export type NoticeTry = { sent: true } | { sent: false; attempts: number; nextAttemptAt: number | null; error: string };
