import { startCheckpointer } from "../db/checkpointer.js";
import { openGatewayDb } from "../db/client.js";
import type { HttpMetrics } from "../http/metrics.js";
import type { Logger } from "../log.js";
import { createGatewayApp, createOpsApp } from "./app.js";
import { openForwardingQueues } from "./console/queue-dashboard.js";
import { defaultSettings, type GatewayContext, type GatewaySettings } from "./context.js";
import { DEFAULT_PREFIX } from "./coordination/index.js";
import { createForwardingDriver, type ForwardingOptions } from "./forwarding/index.js";
import { ProfileEngine } from "./profiles/index.js";
import { registerEngineMetrics } from "./profiles/metrics.js";
import { resolveMasterKey } from "./security/master-key.js";
import { PasswordHasher } from "./security/passwords.js";
import { Sealer } from "./security/sealer.js";
import { sqliteStorage } from "./storage/transaction.js";
import { repairSettlements, settlementRecorder, startWebhooks, type WebhookOptions } from "./webhooks/index.js";
import { startLedWebhooks } from "./webhooks/led-webhooks.js";

export interface GatewayOptions {
  databasePath: string;
  log: Logger;
  settings?: Partial<GatewaySettings>;
  masterKey?: string;
  metrics?: HttpMetrics;
  /**
   * Forward to this upstream (the Inbound API); without it submissions are accepted and stay queued. With `redis`,
   * the BullMQ driver (this process: API, and a worker unless `redis.worker` is false).
   */
  forwarding?: ForwardingOptions;
  /** Profile evaluation pool size and time limit. */
  engine?: { poolSize?: number; timeoutMs?: number };
  now?: () => Date;
  /** Webhook delivery: retry schedule, concurrency, SSRF allow-list (src/gateway/webhooks). */
  webhooks?: WebhookOptions;
  /**
   * `/metrics` and readiness details: behind `token` (a bearer token) when set; with `separate`, only on the
   * operations app (`opsApp`, for its own listener), not on the public one.
   */
  ops?: { token?: string | undefined; separate?: boolean };
}

/**
 * The context every part of the gateway runs on, built in order: database (migrated), sealer, profile engine. The
 * gateway and a forwarding worker process (`partner-gateway worker`) both start from it.
 */
export function openGatewayContext(
  options: Pick<GatewayOptions, "databasePath" | "log" | "settings" | "masterKey" | "engine" | "now" | "forwarding">,
) {
  const limits = options.forwarding?.limits;
  const settings: GatewaySettings = {
    ...defaultSettings,
    ...(limits ? { upstreamLimits: limits } : {}),
    ...options.settings,
  };
  const database = openGatewayDb(options.databasePath);
  const checkpointer = startCheckpointer(database.sqlite, { log: options.log });
  const sealer = new Sealer(
    resolveMasterKey({ mode: settings.mode, masterKey: options.masterKey, databasePath: options.databasePath }),
  );
  const engine = new ProfileEngine({ ...options.engine, log: options.log });
  const ctx: GatewayContext = {
    db: database.db,
    sqlite: database.sqlite,
    log: options.log,
    sealer,
    engine,
    settings,
    ...sqliteStorage(database),
    passwords: new PasswordHasher(settings.passwordCost),
    now: options.now ?? (() => new Date()),
  };
  return {
    ctx,
    async close() {
      await engine.close();
      await checkpointer?.close();
      database.close();
    },
  };
}

/** Builds the gateway once, in order: context, forwarding, app, webhooks. */
export async function createGateway(options: GatewayOptions) {
  const { ctx, close } = openGatewayContext(options);
  if (options.metrics) registerEngineMetrics(options.metrics.registry, ctx.engine);
  const forwarding = options.forwarding;
  // What an earlier version settled without recording what it owed (before forwarding starts settling more).
  await repairSettlements(ctx);
  // A settled submission may owe its vendor a webhook (a booking confirmation, a submission result): recorded in the
  // transaction of its outcome.
  const forwarder = forwarding
    ? createForwardingDriver(ctx, { ...forwarding, settlement: settlementRecorder(ctx) })
    : undefined;
  if (forwarder) {
    ctx.forwarding = forwarder;
    await forwarder.start();
  }
  // Redis mode: the BullMQ dashboard for the operator's admins (its queues hold every company's jobs).
  const operatorCompanyId = ctx.settings.operatorCompanyId;
  const queues = forwarding?.redis && operatorCompanyId ? openForwardingQueues(forwarding.redis) : undefined;
  const ops = options.ops ?? {};
  const app = createGatewayApp(ctx, {
    metrics: options.metrics,
    ops: { details: !ops.separate, token: ops.token },
    ...(queues && operatorCompanyId ? { queueDashboard: { queues: queues.queues, operatorCompanyId } } : {}),
  });
  // With Redis, several API processes share the database: one of them, elected, sends the webhooks.
  const webhooks = forwarding?.redis
    ? startLedWebhooks(ctx, options.webhooks ?? {}, {
        url: forwarding.redis.url,
        prefix: forwarding.redis.prefix ?? DEFAULT_PREFIX,
      })
    : await startWebhooks(ctx, options.webhooks);
  const opsApp = ops.separate ? createOpsApp(ctx, { metrics: options.metrics, token: ops.token }) : undefined;
  return {
    ctx,
    app,
    /** With `ops.separate`: the operations endpoints, for a listener of their own. */
    opsApp,
    forwarder,
    webhooks,
    /** Graceful: in-flight upstream calls get `deadlineMs` to finish; then leases are released. */
    async close(deadlineMs?: number) {
      await forwarder?.close(deadlineMs);
      await webhooks.close();
      await queues?.close();
      await close();
    },
  };
}

export type Gateway = Awaited<ReturnType<typeof createGateway>>;
