import type { GatewayContext } from "../context.js";
import type { AlertRow } from "../storage/alerts/index.js";
import type { NoticeSender } from "./channels/notice-sender.js";
import type { AlertSettings } from "./settings.js";

/**
 * The notices a company's alerts owe after an evaluation (D-343): an open alert not yet notified, or notified longer
 * ago than the re-notify interval (an acknowledged one is not reminded: someone is on it); a resolved alert that was
 * notified open, its "resolved" notice. A muted alert sends nothing until its mute ends — its "resolved" notice is
 * dropped, since the owner did not want to hear of it. Each notice is claimed in the database before it is sent, so
 * of two evaluators one sends it (D-342), and the claim writes what it owes each channel, so a channel that fails is
 * tried again from the database (D-347).
 */
export async function notifyCompany(
  ctx: GatewayContext,
  companyId: string,
  settings: AlertSettings,
  sender: NoticeSender,
): Promise<number> {
  const now = ctx.now();
  const at = now.toISOString();
  let sent = 0;
  for (const alert of await ctx.alerts.live(companyId)) {
    if (muted(alert, now)) continue;
    const due =
      alert.notifiedAt === null ||
      (alert.status === "open" && now.getTime() - Date.parse(alert.notifiedAt) >= settings.renotifyMinutes * 60_000);
    if (!due) continue;
    const owed = sender.owed(settings, alert, "alert.opened", alert.notifiedAt !== null, Date.now());
    if (!(await ctx.alerts.claimNotice(alert.id, alert.notifiedAt, at, owed))) continue;
    await sender.send(settings, alert, owed);
    sent++;
  }
  for (const alert of await ctx.alerts.resolvedNoticesOwed(companyId)) {
    const owed = muted(alert, now) ? [] : sender.owed(settings, alert, "alert.resolved", false, Date.now());
    if (!(await ctx.alerts.claimResolvedNotice(alert.id, at, owed)) || owed.length === 0) continue;
    await sender.send(settings, alert, owed);
    sent++;
  }
  return sent;
}

export function muted(alert: AlertRow, now: Date): boolean {
  return alert.mutedUntil !== null && Date.parse(alert.mutedUntil) > now.getTime();
}
