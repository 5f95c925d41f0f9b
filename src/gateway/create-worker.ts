import type { Logger } from "../log.js";
import type { GatewaySettings } from "./context.js";
import { openGatewayContext } from "./create-gateway.js";
import type { ForwarderOptions } from "./forwarding/forwarder.js";
import { BullmqForwarding, type RedisForwardingOptions } from "./forwarding/redis/bullmq-forwarding.js";
import type { Tracing } from "./tracing/index.js";
import { settlementRecorder } from "./webhooks/index.js";

export interface ForwardingWorkerOptions {
  databasePath: string;
  /** PostgreSQL (DATABASE_URL), as the API processes' (D-255). */
  databaseUrl?: string | undefined;
  postgres?: { poolMax?: number; statementTimeoutMs?: number };
  log: Logger;
  settings?: Partial<GatewaySettings>;
  masterKey?: string;
  forwarding: ForwarderOptions & { redis: Omit<RedisForwardingOptions, "api" | "worker"> };
  /** Spans of the attempts and settlements it runs, in their leads' traces (docs/tracing.md). */
  tracing?: Tracing;
}

/**
 * A forwarding worker process (`partner-gateway worker`, BullMQ driver): a candidate dispatcher and a consumer of
 * send jobs on the gateway's database, without HTTP and without webhook delivery (deliveries it enqueues are sent by
 * the API processes' webhook dispatchers, woken over Redis).
 */
export async function createForwardingWorker(options: ForwardingWorkerOptions) {
  // Forwarding never evaluates a profile: one evaluator is enough for the context.
  const { forwarding } = options;
  const { ctx, storage, close } = await openGatewayContext({
    databasePath: options.databasePath,
    databaseUrl: options.databaseUrl,
    ...(options.postgres ? { postgres: options.postgres } : {}),
    log: options.log,
    settings: options.settings,
    masterKey: options.masterKey,
    engine: { poolSize: 1 },
    forwarding: { upstreamUrl: forwarding.upstreamUrl, limits: forwarding.limits },
    ...(options.tracing ? { tracing: options.tracing } : {}),
  });
  const driver = new BullmqForwarding(ctx, {
    ...forwarding,
    redis: { ...forwarding.redis, api: false, worker: true },
    // A settled submission's webhooks are written with its outcome, here; the API processes send them.
    settlement: settlementRecorder(ctx),
  });
  const forwardingStopped = ctx.running.forwardingStarted(driver);
  // Deliveries enqueued here are sent by the API processes: tell them over Redis (the SSRF policy stays the mode's).
  const webhooksStopped = ctx.running.webhooksStarted({
    notify: (subscriptionId, dueAt) => driver.publishWebhookDue(subscriptionId, dueAt),
    policy: ctx.running.outboundPolicy,
  });
  void driver.start(); // returns at once and never rejects: connecting is `started`, failures are logged
  return {
    ctx,
    driver,
    /** The database's own handles, for tools and tests. */
    database: storage.handles,
    /** Resolves once connected to Redis and taking jobs. */
    started: driver.started,
    /** Graceful (SIGTERM): the dispatcher lock is released, running sends get `deadlineMs` to finish. */
    async close(deadlineMs?: number) {
      webhooksStopped();
      await driver.close(deadlineMs);
      forwardingStopped();
      await close();
    },
  };
}

export type ForwardingWorker = Awaited<ReturnType<typeof createForwardingWorker>>;
