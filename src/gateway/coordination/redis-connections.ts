import { Redis } from "ioredis";
import type { Logger } from "../../log.js";

/** How long a producer connection's command may go unanswered (a partition) before it fails (D-335). */
export const PRODUCER_COMMAND_TIMEOUT_MS = 2_000;

/**
 * How each Redis connection is made, as BullMQ asks for production ("Going to production"): reconnect forever with
 * backoff between 1 s and 5 s; `worker` connections (BullMQ workers, queue events, subscribers) wait through an
 * outage (`maxRetriesPerRequest: null`, offline queue on), while `producer` connections (intake's notices, the
 * dispatcher's adds, the leader lock) fail fast so nobody hangs on a command while Redis is away — the database
 * outbox and the reconciler catch up afterwards. A producer's command also fails when Redis does not answer it
 * within PRODUCER_COMMAND_TIMEOUT_MS: through a partition, a leader's renewal would otherwise wait for ever and it
 * would never step down (D-335). TCP keep-alive notices a peer that vanished.
 */
export function redisConnection(url: string, purpose: "worker" | "producer", log: Logger): Redis {
  const redis = new Redis(url, {
    connectionName: `partner-gateway:${purpose}`,
    maxRetriesPerRequest: purpose === "worker" ? null : 1,
    enableOfflineQueue: purpose === "worker",
    ...(purpose === "producer" ? { commandTimeout: PRODUCER_COMMAND_TIMEOUT_MS } : {}),
    keepAlive: 10_000,
    // BullMQ's example waits up to 20 s between tries; 5 s at most, so that the work resumes within seconds of Redis
    // coming back (D-335), at one connection try per 5 s while it is away.
    retryStrategy: (times) => Math.max(Math.min(Math.exp(times), 5_000), 1_000),
  });
  let reported = false;
  // One line per outage, not one per reconnection attempt; the URL may carry a password and is never logged.
  redis.on("error", (error: Error) => {
    if (!reported) log.warn({ purpose, error: error.message }, "redis connection error");
    reported = true;
  });
  redis.on("ready", () => {
    if (reported) log.info({ purpose }, "redis connection restored");
    reported = false;
  });
  return redis;
}

/** Resolves once the connection is ready (or at once if it is). */
export function ready(redis: Redis): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  return new Promise((resolve) => redis.once("ready", () => resolve()));
}

/** Whether a Redis answers at `url` within a second (tests and benchmarks decide whether they can run). */
export async function redisReachable(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0 });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
