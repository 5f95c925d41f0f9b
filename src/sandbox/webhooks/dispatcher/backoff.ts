import type { WebhookConfig } from "../config.js";

/** §6.4.2: attempts a delivery gets before the dead letter — the first, plus one per configured wait. */
export function maxAttempts(config: Pick<WebhookConfig, "retryDelaysMs">): number {
  return config.retryDelaysMs.length + 1;
}

/**
 * The wait after failed attempt `attempt` (1-based), with ± `jitter` spread so failures that happened together do
 * not all retry together; undefined when that was the last attempt.
 */
export function retryDelayMs(
  config: Pick<WebhookConfig, "retryDelaysMs" | "jitter">,
  attempt: number,
  random: () => number = Math.random,
): number | undefined {
  const base = config.retryDelaysMs[attempt - 1];
  if (base === undefined) return undefined;
  const spread = base * config.jitter * (random() * 2 - 1);
  return Math.max(0, Math.round(base + spread));
}
