import { z } from "zod";
import { DELIVERY_TIMEOUT_MS } from "../../net/index.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * §6.4.2–3: retries with exponential backoff, schedule not shown. After the first attempt (at once) the waits are
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h — eight attempts over about 28 hours — then the dead letter.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

export const webhookOptionsSchema = z
  .object({
    /** Waits before attempts 2, 3, …; attempts = length + 1. Tests use milliseconds. */
    retryDelaysMs: z
      .array(z.number().int().min(0))
      .max(50)
      .default([...DEFAULT_RETRY_DELAYS_MS]),
    /** ± this fraction of each wait, so a burst of failures does not retry in lockstep. 0 in tests. */
    jitter: z.number().min(0).max(1).default(0.1),
    /** §6.4.1: the service waits up to 10 s for a response. */
    timeoutMs: z.number().int().min(1).default(DELIVERY_TIMEOUT_MS),
    /** How often the dispatcher looks for due deliveries when it was not woken. */
    pollIntervalMs: z.number().int().min(1).default(250),
    /** Attempts in flight at once, all endpoints together. */
    concurrency: z.number().int().min(1).default(32),
    /** Attempts in flight at once to one subscription: a dead endpoint holds at most this many slots. */
    perSubscriptionConcurrency: z.number().int().min(1).default(4),
    /** §6.5.3 "a short overlap" after activation, reported to the owner (the sandbox signs with the current only). */
    overlapSeconds: z.number().int().min(0).default(3600),
    /** Extra destinations for deliveries beyond loopback and public https (src/net policy allow-list). */
    allowList: z.array(z.string()).default([]),
  })
  .strict();

export type WebhookOptions = z.input<typeof webhookOptionsSchema>;
export type WebhookConfig = z.output<typeof webhookOptionsSchema>;

export function resolveWebhookConfig(options: WebhookOptions = {}): WebhookConfig {
  return webhookOptionsSchema.parse(options);
}
