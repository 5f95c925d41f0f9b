import { z } from "zod";

/**
 * §8 limits as levels. `key`, `owner` and `ip` guard `/api/inbound/*` together; `health` guards the health and version
 * endpoints on its own. Every level is configurable so tests and benchmarks can run them per second.
 */
export const LEVELS = ["key", "owner", "ip", "health"] as const;
export type Level = (typeof LEVELS)[number];

export const limitRuleSchema = z.object({
  limit: z.number().int().min(1),
  windowMs: z.number().int().min(1),
});
export type LimitRule = z.infer<typeof limitRuleSchema>;

export type LimitsConfig = Record<Level, LimitRule>;

export const limitsOverrideSchema = z
  .object({ key: limitRuleSchema, owner: limitRuleSchema, ip: limitRuleSchema, health: limitRuleSchema })
  .partial()
  .strict();
export type LimitsOverride = z.infer<typeof limitsOverrideSchema>;

const MINUTE = 60_000;

/** §8: 60/min per key, 300/min per owner (all its keys), 600/min per source IP on inbound, 3,000/min on health. */
export const SPEC_LIMITS: LimitsConfig = {
  key: { limit: 60, windowMs: MINUTE },
  owner: { limit: 300, windowMs: MINUTE },
  ip: { limit: 600, windowMs: MINUTE },
  health: { limit: 3000, windowMs: MINUTE },
};

export function resolveLimits(override: LimitsOverride = {}): LimitsConfig {
  return { ...SPEC_LIMITS, ...override };
}
