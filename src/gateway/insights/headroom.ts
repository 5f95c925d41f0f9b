import type { GatewayContext } from "../context.js";
import { companyRule, type LimitRule } from "../forwarding/limits.js";

export interface LevelUse {
  used: number;
  limit: number;
  windowMs: number;
}

/**
 * How close a company runs to each upstream limit (§8), from the sends recorded in the current window: every
 * attempt counts, a 429 too, since the platform counts it. The egress level is the gateway's single source IP, shared
 * by every company: only its total is shown, never who used it.
 */
export async function limiterHeadroom({ ctx, companyId }: { ctx: GatewayContext; companyId: string }) {
  const limits = ctx.settings.upstreamLimits;
  const own = await ctx.tenants.companyLimits(companyId);
  const credentialRule = companyRule(limits.perCredential, own?.perCredential);
  const companyLevel = companyRule(limits.perCompany, own?.perCompany);
  const now = ctx.now().getTime();

  const sendsByCredential = (rule: LimitRule) => ctx.submissions.sendsByCredential(companyId, now - rule.windowMs);

  const perCredential = new Map((await sendsByCredential(credentialRule)).map((r) => [r.credentialId, r.used]));
  const companyUsed = (await sendsByCredential(companyLevel)).reduce((sum, r) => sum + r.used, 0);
  const egressUsed = await ctx.submissions.sendsSince(now - limits.egress.windowMs);

  const credentials = (await ctx.credentials.listOfCompany(companyId)).map((c) => ({
    credentialId: c.id,
    name: c.name,
    ...level(perCredential.get(c.id) ?? 0, credentialRule),
  }));
  return {
    at: new Date(now).toISOString(),
    credentials,
    company: level(companyUsed, companyLevel),
    egress: level(egressUsed, limits.egress),
  };
}

function level(used: number, rule: LimitRule): LevelUse {
  return { used, limit: rule.limit, windowMs: rule.windowMs };
}
