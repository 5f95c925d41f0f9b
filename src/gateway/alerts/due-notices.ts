import type { GatewayContext } from "../context.js";
import { NOTICE_LEASE_MS, type NoticeSender } from "./channels/notice-sender.js";
import { muted } from "./notify-company.js";
import { type AlertSettings, alertSettingsOf } from "./settings.js";

/** Owed notices tried per pass, at most. */
const PAGE = 100;

/**
 * The notices owed to a channel that are due again (D-347): a failed try's next one, or a try whose process stopped
 * before it ended (its lease ran out). Each is taken in the database before it is tried, so of two processes one
 * tries it. One that can no longer be sent — its channel turned off, its alert muted or gone — is dropped.
 */
export async function sendDueNotices(ctx: GatewayContext, sender: NoticeSender): Promise<number> {
  const nowMs = Date.now();
  const settingsOf = new Map<string, AlertSettings>();
  let tried = 0;
  for (const row of await ctx.alerts.dueNotices(nowMs, PAGE)) {
    const leaseUntil = Date.now() + NOTICE_LEASE_MS;
    if (!(await ctx.alerts.takeNotice(row.id, row.nextAttemptAt, leaseUntil))) continue;
    const taken = { ...row, nextAttemptAt: leaseUntil };
    const settings = settingsOf.get(row.companyId) ?? (await alertSettingsOf(ctx, row.companyId));
    settingsOf.set(row.companyId, settings);
    const alert = await ctx.alerts.getOfCompany(row.alertId, row.companyId);
    if (!alert || muted(alert, ctx.now()) || !sender.configured(settings, row.channel)) {
      await ctx.alerts.endNotice(row.id, leaseUntil, {
        sent: false,
        attempts: row.attempts,
        nextAttemptAt: null,
        error: "dropped",
      });
      continue;
    }
    await sender.send(settings, alert, [taken]);
    tried++;
  }
  return tried;
}
