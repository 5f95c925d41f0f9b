import { badRequest, notFound } from "../../http/errors.js";
import type { GatewayContext } from "../context.js";
import type { AlertStatus } from "../storage/alerts/index.js";
import { type AlertView, alertView } from "./alert-view.js";

/** The longest mute: a month; past that the owner should fix the threshold or the route instead. */
const MAX_MUTE_MS = 30 * 24 * 3_600_000;

/** A company's alerts, newest first, by status (open, acknowledged, resolved) or all: the history stays. */
export async function listAlerts(input: {
  ctx: GatewayContext;
  companyId: string;
  status?: AlertStatus | undefined;
  limit: number;
  cursor?: string | undefined;
}): Promise<{ alerts: AlertView[]; nextCursor: string | null }> {
  const rows = await input.ctx.alerts.list(input.companyId, {
    status: input.status,
    cursor: input.cursor,
    limit: input.limit,
  });
  const page = rows.slice(0, input.limit);
  return { alerts: page.map(alertView), nextCursor: rows.length > input.limit ? (page.at(-1)?.id ?? null) : null };
}

/**
 * Someone is on it (D-343): an open alert acknowledged is not reminded, and still resolves by itself. Acknowledging
 * one acknowledged or resolved changes nothing and answers it as it is.
 */
export async function acknowledgeAlert(input: { ctx: GatewayContext; companyId: string; id: string }) {
  const { ctx, companyId, id } = input;
  const row = await ctx.alerts.acknowledge(id, companyId, ctx.now().toISOString());
  if (!row) throw notFound();
  return alertView(row);
}

/** No notice of the alert before `until` (D-343): the console still lists it; a past instant ends a mute. */
export async function muteAlert(input: { ctx: GatewayContext; companyId: string; id: string; until: string }) {
  const { ctx, companyId, id } = input;
  const now = ctx.now();
  const until = new Date(input.until);
  if (until.getTime() - now.getTime() > MAX_MUTE_MS) {
    throw badRequest("until: at most 30 days ahead", { field: "until" });
  }
  const row = await ctx.alerts.mute(id, companyId, until.toISOString(), now.toISOString());
  if (!row) throw notFound();
  return alertView(row);
}
