/** §8: the upstream's limits, each a count per window. Configurable globally and per company ("by arrangement"). */
export interface LimitRule {
  limit: number;
  windowMs: number;
}

export interface ForwardingLimits {
  perCredential: LimitRule;
  perCompany: LimitRule;
  /** The gateway is one source IP: this caps every tenant together (§8, 600/min on /inbound). */
  egress: LimitRule;
  /** Added to each window edge (clock granularity); jitter needs none, see SendWindow. */
  marginMs: number;
}

export const SPEC_FORWARDING_LIMITS: ForwardingLimits = {
  perCredential: { limit: 60, windowMs: 60_000 },
  perCompany: { limit: 300, windowMs: 60_000 },
  egress: { limit: 600, windowMs: 60_000 },
  marginMs: 1,
};

/**
 * Slots of a shared level's window (company, egress) kept for a newcomer's first send, so a burst or a backlog never
 * locks another company out for a whole window. One: lent to a paced backlog late in a window (D-360), it costs the
 * backlog nothing, and past it a newcomer waits at most one paced interval (docs/forwarding.md, "The limiter's policy").
 */
export const SHARED_LEVEL_RESERVE = 1;

/** A company's own per-minute figures (companies.limits) scale the rule's window. */
export function companyRule(base: LimitRule, perMinute: number | undefined): LimitRule {
  if (!perMinute) return base;
  return { limit: Math.max(1, Math.round((perMinute * base.windowMs) / 60_000)), windowMs: base.windowMs };
}
