import { and, count, eq, gte } from "drizzle-orm";
import { companies, submissionAttempts, submissions, upstreamCredentials } from "../../db/schema/index.js";
import { idFloor } from "../../ids.js";
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
export function limiterHeadroom({ ctx, companyId }: { ctx: GatewayContext; companyId: string }) {
  const limits = ctx.settings.upstreamLimits;
  const own = ctx.db.select({ limits: companies.limits }).from(companies).where(eq(companies.id, companyId)).get();
  const credentialRule = companyRule(limits.perCredential, own?.limits?.perCredential);
  const companyLevel = companyRule(limits.perCompany, own?.limits?.perCompany);
  const now = ctx.now().getTime();

  const sendsByCredential = (rule: LimitRule) =>
    ctx.db
      .select({ credentialId: submissions.credentialId, used: count() })
      .from(submissionAttempts)
      .innerJoin(submissions, eq(submissions.id, submissionAttempts.submissionId))
      .where(and(gte(submissionAttempts.id, idFloor("att", now - rule.windowMs)), eq(submissions.companyId, companyId)))
      .groupBy(submissions.credentialId)
      .all();

  const perCredential = new Map(sendsByCredential(credentialRule).map((r) => [r.credentialId, r.used]));
  const companyUsed = sendsByCredential(companyLevel).reduce((sum, r) => sum + r.used, 0);
  const egressUsed =
    ctx.db
      .select({ used: count() })
      .from(submissionAttempts)
      .where(gte(submissionAttempts.id, idFloor("att", now - limits.egress.windowMs)))
      .get()?.used ?? 0;

  const credentials = ctx.db
    .select({ id: upstreamCredentials.id, name: upstreamCredentials.name })
    .from(upstreamCredentials)
    .where(eq(upstreamCredentials.companyId, companyId))
    .all()
    .map((c) => ({ credentialId: c.id, name: c.name, ...level(perCredential.get(c.id) ?? 0, credentialRule) }));
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
