import { parseRetryAfter } from "../../net/retry-after.js";

/**
 * §7's client retry rule: network errors, timeouts and 5xx are retried with exponential backoff and full jitter
 * (the same idempotency key every time); other 4xx fail at once, except 429 (backoff by retry-after, without
 * consuming an attempt) and 401/403 (the credential is paused, not the submission's fault).
 *
 * Default schedule: attempt n waits a random time in [0, min(1 h, 2 s × 2^(n-1))], for at most 14 attempts and at
 * most 24 hours after the first send; the expected total is about 5 hours, the bound about a day.
 */
export interface SendRetryPolicy {
  baseMs: number;
  capMs: number;
  maxAttempts: number;
  horizonMs: number;
}

export const DEFAULT_SEND_RETRY: SendRetryPolicy = {
  baseMs: 2_000,
  capMs: 3_600_000,
  maxAttempts: 14,
  horizonMs: 86_400_000,
};

export type Outcome =
  | { kind: "success" }
  | { kind: "rate_limited"; retryAfterMs: number }
  | { kind: "credential_rejected" }
  | { kind: "retryable" }
  | { kind: "permanent" };

export function classify(status: number | null, retryAfter: string | null): Outcome {
  if (status === null) return { kind: "retryable" };
  if (status >= 200 && status < 300) return { kind: "success" };
  if (status === 429) return { kind: "rate_limited", retryAfterMs: retryAfterMs(retryAfter) };
  if (status === 401 || status === 403) return { kind: "credential_rejected" };
  if (status >= 500) return { kind: "retryable" };
  return { kind: "permanent" };
}

/** A 429's `retry-after` (net/retry-after.ts: at most 24 h); 1 s when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number {
  return parseRetryAfter(value, now) ?? 1_000;
}

/** When to send again after `attempts` counted attempts, or null when the budget (count or horizon) is spent. */
export function nextSendAt(
  policy: SendRetryPolicy,
  attempts: number,
  firstSentAt: number,
  now: number,
  random: () => number = Math.random,
): number | null {
  if (attempts >= policy.maxAttempts) return null;
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempts - 1));
  const at = now + random() * ceiling;
  return at - firstSentAt > policy.horizonMs ? null : at;
}
