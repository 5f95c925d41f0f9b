/** The prefix of a deployment that sets none (`REDIS_PREFIX`). */
export const DEFAULT_PREFIX = "partner-gateway";

/** Names in Redis, all under one prefix (one per deployment; one per test). */
export function forwardingKeys(prefix: string) {
  return {
    /** The dispatcher's lock: SET NX PX, renewed by its holder. */
    leader: `${prefix}:fwd:leader`,
    /** A limiter node's history: a sorted set of sends scored by answer time (in flight: the latest arrival). */
    log: (node: string) => `${prefix}:fwd:log:${node}`,
    logs: `${prefix}:fwd:log:*`,
    logPrefix: `${prefix}:fwd:log:`,
    /** Worker processes alive: member = instance id, score = until when (renewed with the lock's time to live). */
    workers: `${prefix}:fwd:workers`,
    /** Credentials paused by a 429: field = credential id, value = until (ms). */
    pauses: `${prefix}:fwd:pauses`,
    /** Pub/sub: a submission was committed (intake, redrive): wakes the dispatcher. */
    accepted: `${prefix}:fwd:accepted`,
    /** Pub/sub: a credential was rotated: the dispatcher reconciles. */
    rotated: `${prefix}:fwd:rotated`,
    /** Pub/sub: a submission settled (forwarded or failed): wakes sync answers in API processes. */
    settled: `${prefix}:fwd:settled`,
    /** Pub/sub: a worker enqueued webhook deliveries (`subscriptionId dueAt`): wakes the API processes' dispatchers. */
    webhooksDue: `${prefix}:fwd:webhooks-due`,
    /** The BullMQ queue of reserved sends (BullMQ puts its own keys under `prefix`). */
    sendQueue: "forward-send",
  };
}

export type ForwardingKeys = ReturnType<typeof forwardingKeys>;

/** The message on `webhooksDue`: a subscription with deliveries due at a time (ms). */
export function webhookDueMessage(subscriptionId: string, dueAt: number): string {
  return `${subscriptionId} ${Math.round(dueAt)}`;
}

export function parseWebhookDue(message: string): { subscriptionId: string; dueAt: number } | undefined {
  const [subscriptionId, dueAt] = message.split(" ");
  return subscriptionId ? { subscriptionId, dueAt: Number(dueAt) || Date.now() } : undefined;
}
