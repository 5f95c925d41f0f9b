/** The prefix of a deployment that sets none (`REDIS_PREFIX`). */
export const DEFAULT_PREFIX = "partner-gateway";

/** What processes sharing one Redis coordinate through, all under one prefix (one per deployment; one per test). */
export function coordinationKeys(prefix: string) {
  return {
    /** The forwarding dispatcher's lock (held by a worker process): SET NX PX, renewed by its holder. */
    forwardingLeader: `${prefix}:fwd:leader`,
    /** The webhook dispatcher's lock (held by an API process). */
    webhooksLeader: `${prefix}:webhooks:leader`,
    /** The pause board: credentials paused by a 429, field = credential id, value = until (ms). */
    pauses: `${prefix}:fwd:pauses`,
    /** Pub/sub: a worker enqueued webhook deliveries (`subscriptionId dueAt`): wakes the API processes' dispatchers. */
    webhooksDue: `${prefix}:fwd:webhooks-due`,
  };
}

/** The message on `webhooksDue`: a subscription with deliveries due at a time (ms). */
export function webhookDueMessage(subscriptionId: string, dueAt: number): string {
  return `${subscriptionId} ${Math.round(dueAt)}`;
}

export function parseWebhookDue(message: string): { subscriptionId: string; dueAt: number } | undefined {
  const [subscriptionId, dueAt] = message.split(" ");
  return subscriptionId ? { subscriptionId, dueAt: Number(dueAt) || Date.now() } : undefined;
}
