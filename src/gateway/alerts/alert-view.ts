import type { AlertRow } from "../storage/alerts/index.js";

/** An alert as the owner API, the console and the operational webhook show it (docs/owner-api.md, "Alerts"). */
export function alertView(row: AlertRow) {
  return {
    id: row.id,
    condition: row.condition,
    resourceType: row.resourceType,
    resourceId: row.resourceId,
    severity: row.severity,
    status: row.status,
    openedAt: row.openedAt,
    lastSeenAt: row.lastSeenAt,
    resolvedAt: row.resolvedAt,
    acknowledgedAt: row.acknowledgedAt,
    mutedUntil: row.mutedUntil,
    count: row.count,
    message: row.message,
    link: row.link,
  };
}

export type AlertView = ReturnType<typeof alertView>;
