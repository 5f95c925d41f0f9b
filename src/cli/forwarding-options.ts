import type { Env } from "../config.js";
import type { LoadedConfig } from "../gateway/config/config-file.js";
import { type ForwardingLimits, SPEC_FORWARDING_LIMITS } from "../gateway/forwarding/limits.js";

/**
 * The upstream limits of a config file (per minute, §8), or the spec's when it sets none. A sandbox run's shorter
 * window (`windowMs`, D-252) scales the figures to it; the schema has checked that they come out whole.
 */
export function configuredLimits(loaded: LoadedConfig): ForwardingLimits | undefined {
  const limits = loaded.config.upstreamLimits;
  if (!limits) return undefined;
  const windowMs = limits.windowMs ?? 60_000;
  const rule = (perMinute: number) => ({ limit: (perMinute * windowMs) / 60_000, windowMs });
  return {
    perCredential: rule(limits.perCredentialPerMinute),
    perCompany: rule(limits.perCompanyPerMinute),
    egress: rule(limits.egressPerMinute),
    marginMs: SPEC_FORWARDING_LIMITS.marginMs,
  };
}

/** The BullMQ driver's connection when `REDIS_URL` is set; the embedded driver otherwise. */
export function configuredRedis(env: Env): { url: string; prefix: string } | undefined {
  return env.REDIS_URL ? { url: env.REDIS_URL, prefix: env.REDIS_PREFIX } : undefined;
}
