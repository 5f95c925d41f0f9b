import type { GatewayContext } from "../context.js";
import type { AlertRow } from "../storage/alerts/index.js";
import type { NoticeSender } from "./channels/notice-sender.js";
import { makeNotice } from "./notice.js";
import type { AlertSettings } from "./settings.js";

/**
 * The notices a company's alerts owe after an evaluation (D-343): an open alert not yet notified, or notified longer
 * ago than the re-notify interval (an acknowledged one is not reminded: someone is on it); a resolved alert that was
 * notified open, its "resolved" notice. A muted alert sends nothing until its mute ends — its "resolved" notice is
 * dropped, since the owner did not want to hear of it. Each notice is claimed in the database before it is sent, so
 * of two evaluators one sends it (D-342).
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
    if (!due || !(await ctx.alerts.claimNotice(alert.id, alert.notifiedAt, at))) continue;
    await sender.send(settings, makeNotice("alert.opened", alert, ctx.settings.publicUrl, alert.notifiedAt !== null));
    sent++;
  }
  for (const alert of await ctx.alerts.resolvedNoticesOwed(companyId)) {
    if (!(await ctx.alerts.claimResolvedNotice(alert.id, at))) continue;
    if (muted(alert, now)) continue;
    await sender.send(settings, makeNotice("alert.resolved", alert, ctx.settings.publicUrl));
    sent++;
  }
  return sent;
}

function muted(alert: AlertRow, now: Date): boolean {
  return alert.mutedUntil !== null && Date.parse(alert.mutedUntil) > now.getTime();
}
