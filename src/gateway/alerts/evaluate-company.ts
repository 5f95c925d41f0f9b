import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import { isStoreOutage } from "../outage/index.js";
import type { AlertRow } from "../storage/alerts/index.js";
import { FINDERS } from "./conditions/index.js";
import { CONDITIONS, type Condition, SEVERITY_OF, type Thresholds } from "./conditions.js";
import { type Finding, findingKey } from "./finding.js";
import { once, type Scan } from "./scan.js";

/** What one evaluation changed: the alerts it opened and resolved (the notices follow from the rows). */
export interface Evaluated {
  opened: number;
  resolved: number;
}

/**
 * One evaluation of one company (D-342): every condition's finder, then the live alerts brought in line — a finding
 * without a live alert opens one (unless another evaluator just did: the unique index), a live alert found again
 * gets its count and message, and a live alert no longer found resolves. A finder that fails leaves its condition's
 * alerts as they are: a database hiccup is not a recovery. An outage of the store ends the evaluation (rethrown), to be
 * run again whole once the store is back (D-338).
 */
export async function evaluateCompany(
  ctx: GatewayContext,
  companyId: string,
  thresholds: Thresholds,
): Promise<Evaluated> {
  const nowMs = ctx.now().getTime();
  const at = new Date(nowMs).toISOString();
  const live = await ctx.alerts.live(companyId);
  const scan: Scan = {
    ctx,
    companyId,
    nowMs,
    thresholds,
    live: (condition) => live.filter((a) => a.condition === condition),
    keys: once(() => ctx.vendorKeys.listOfCompany(companyId)),
    connections: once(() => ctx.connections.listOfCompany(companyId)),
  };
  const found = new Map<string, Finding>();
  const evaluated = new Set<Condition>();
  for (const condition of CONDITIONS) {
    try {
      for (const finding of await FINDERS[condition](scan)) found.set(findingKey(finding), finding);
      evaluated.add(condition);
    } catch (error) {
      // An outage of the store is the evaluator's to wait out, for the whole evaluation (D-338).
      if (isStoreOutage(error)) throw error;
      ctx.log.error({ err: error, companyId, condition }, "alert condition not evaluated");
    }
  }

  const result: Evaluated = { opened: 0, resolved: 0 };
  const byKey = new Map(live.map((a) => [findingKey(a), a]));
  for (const [key, finding] of found) {
    const alert = byKey.get(key);
    if (alert) await keep(ctx, alert, finding, at);
    else if (await ctx.alerts.open(newAlert(companyId, finding, at, nowMs))) result.opened++;
  }
  for (const [key, alert] of byKey) {
    if (found.has(key) || !evaluated.has(alert.condition as Condition)) continue;
    if (await ctx.alerts.resolve(alert.id, at)) result.resolved++;
  }
  return result;
}

async function keep(ctx: GatewayContext, alert: AlertRow, finding: Finding, at: string): Promise<void> {
  if (alert.count === finding.count && alert.message === finding.message && alert.link === finding.link) return;
  await ctx.alerts.seen(alert.id, {
    count: finding.count,
    message: finding.message,
    link: finding.link,
    lastSeenAt: at,
  });
}

function newAlert(companyId: string, finding: Finding, at: string, nowMs: number) {
  return {
    id: newId("alr", nowMs),
    companyId,
    ...finding,
    severity: SEVERITY_OF[finding.condition],
    status: "open" as const,
    openedAt: at,
    lastSeenAt: at,
    updatedAt: at,
  };
}
