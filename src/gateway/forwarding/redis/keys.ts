import { coordinationKeys } from "../../coordination/index.js";

export { DEFAULT_PREFIX } from "../../coordination/index.js";

/** Names in Redis, all under one prefix (one per deployment; one per test). */
export function forwardingKeys(prefix: string) {
  const shared = coordinationKeys(prefix);
  return {
    /** The dispatcher's lock (coordination/keys.ts). */
    leader: shared.forwardingLeader,
    /** A limiter node's history: a sorted set of sends scored by answer time (in flight: the latest arrival). */
    log: (node: string) => `${prefix}:fwd:log:${node}`,
    logs: `${prefix}:fwd:log:*`,
    logPrefix: `${prefix}:fwd:log:`,
    /** Worker processes alive: member = instance id, score = until when (renewed with the lock's time to live). */
    workers: `${prefix}:fwd:workers`,
    /** The pause board (coordination/pause-board.ts). */
    pauses: shared.pauses,
    /** Pub/sub: a submission was committed (intake, redrive): wakes the dispatcher. */
    accepted: `${prefix}:fwd:accepted`,
    /** Pub/sub: a credential was rotated: the dispatcher reconciles. */
    rotated: `${prefix}:fwd:rotated`,
    /** Pub/sub: a submission settled (forwarded or failed): wakes sync answers in API processes. */
    settled: `${prefix}:fwd:settled`,
    /** Pub/sub: a worker enqueued webhook deliveries (coordination/keys.ts). */
    webhooksDue: shared.webhooksDue,
    /** The BullMQ queue of reserved sends (BullMQ puts its own keys under `prefix`). */
    sendQueue: "forward-send",
  };
}

export type ForwardingKeys = ReturnType<typeof forwardingKeys>;

export { parseWebhookDue, webhookDueMessage } from "../../coordination/index.js";
