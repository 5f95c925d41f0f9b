/**
 * Retry schedule of the gateway's deliveries (§6.4.2 "exponential backoff", §6.4.3 details not shown): the first
 * attempt at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h — eight attempts over about 28 hours — each
 * delay ±20 % jitter so a recovering endpoint is not hit by every delivery at the same instant. After the last, the
 * delivery goes to the dead letter.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

export const DEFAULT_JITTER = 0.2;

/** A Retry-After longer than this is capped (an endpoint cannot park a delivery for weeks): net/retry-after.ts. */
export { MAX_RETRY_AFTER_MS } from "../../../net/retry-after.js";

export interface DeliveryRetryPolicy {
  /** Delay before attempt 2, 3, …; its length + 1 is the number of attempts of a round. */
  schedule: readonly number[];
  jitter: number;
  maxRetryAfterMs: number;
  random: () => number;
}

/**
 * When to try again after the failure of attempt `retryIndex + 1` of the round, or undefined when the round is over
 * (dead letter). A Retry-After from the endpoint is honoured when it asks for longer than the schedule.
 */
export function nextDeliveryAt(
  policy: DeliveryRetryPolicy,
  retryIndex: number,
  nowMs: number,
  retryAfterMs: number | undefined,
): number | undefined {
  const base = policy.schedule[retryIndex];
  if (base === undefined) return undefined;
  const jittered = base * (1 + policy.jitter * (2 * policy.random() - 1));
  const asked = retryAfterMs === undefined ? 0 : Math.min(retryAfterMs, policy.maxRetryAfterMs);
  return nowMs + Math.max(Math.round(jittered), asked);
}
