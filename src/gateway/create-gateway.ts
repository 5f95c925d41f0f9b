import type { HttpMetrics } from "../http/metrics.js";
import type { Logger } from "../log.js";
import { AlertEvaluator, type AlertOptions } from "./alerts/evaluator.js";
import { createGatewayApp, createOpsApp } from "./app.js";
import { PresetCatalogue } from "./connections/catalogue.js";
import { Fetcher, type FetcherOptions } from "./connections/fetcher.js";
import { openForwardingQueues } from "./console/queue-dashboard.js";
import { defaultSettings, type GatewayContext, type GatewaySettings } from "./context.js";
import { DEFAULT_PREFIX } from "./coordination/index.js";
import { createForwardingDriver, type ForwardingOptions } from "./forwarding/index.js";
import { StoreOutages } from "./outage/index.js";
import { ProfileEngine } from "./profiles/index.js";
import { registerEngineMetrics } from "./profiles/metrics.js";
import { ProfileSuggester, type SuggestLimits } from "./profiles-admin/suggest/index.js";
import { Running } from "./running.js";
import { resolveMasterKey } from "./security/master-key.js";
import { PasswordHasher } from "./security/passwords.js";
import { Sealer } from "./security/sealer.js";
import { type OpenedStorage, openStorage } from "./storage/open-storage.js";
import { IN_TRANSACTION } from "./storage/transaction.js";
import { NO_TRACING, type Tracing } from "./tracing/index.js";
import { repairSettlements, settlementRecorder, startWebhooks, type WebhookOptions } from "./webhooks/index.js";
import { startLedWebhooks } from "./webhooks/led-webhooks.js";

export interface GatewayOptions {
  /** The SQLite file (or `:memory:`); unused when `databaseUrl` is set. */
  databasePath: string;
  /** PostgreSQL (DATABASE_URL): the gateway's state there instead of the SQLite file (D-255). */
  databaseUrl?: string | undefined;
  /** The pool's size and statement timeout on PostgreSQL (PG_POOL_MAX, PG_STATEMENT_TIMEOUT_MS). */
  postgres?: { poolMax?: number; statementTimeoutMs?: number };
  log: Logger;
  settings?: Partial<GatewaySettings>;
  masterKey?: string;
  metrics?: HttpMetrics;
  /**
   * Forward to this upstream (the Inbound API); without it submissions are accepted and stay queued. With `redis`,
   * the BullMQ driver (this process: API, and a worker unless `redis.worker` is false).
   */
  forwarding?: ForwardingOptions;
  /** The presets the gateway offers (presets/<id>/ directories); none when unset. */
  presetsDir?: string;
  /** Profile evaluation pool size and time limit. */
  engine?: { poolSize?: number; timeoutMs?: number };
  /** The profile suggester's limits (its time limit and queue; docs/decisions.md, D-314). */
  suggest?: Partial<SuggestLimits>;
  now?: () => Date;
  /** Webhook delivery: retry schedule, concurrency, SSRF allow-list (src/gateway/webhooks). */
  webhooks?: WebhookOptions;
  /** Alerts (docs/alerts.md): the evaluator's interval, SMTP for e-mail; `enabled: false` runs none here. */
  alerts?: AlertOptions;
  /** The fetch of notified records: time limit, retry schedule, the minute of `perMinute` (connections/fetcher.ts). */
  fetcher?: FetcherOptions;
  /** Store outages (D-334): how long after a database outage the leases that expired in it stay their holders'. */
  outages?: { leaseGraceMs?: number };
  /**
   * `/metrics` and readiness details: behind `token` (a bearer token) when set; with `separate`, only on the
   * operations app (`opsApp`, for its own listener), not on the public one.
   */
  ops?: { token?: string | undefined; separate?: boolean };
  /** Spans of each lead's trace (docs/tracing.md); none when unset. The caller shuts it down after `close`. */
  tracing?: Tracing;
}

/**
 * The context every part of the gateway runs on, built in order: database (PostgreSQL when `databaseUrl` is set,
 * else the SQLite file; migrated), sealer, profile engine. The gateway and a forwarding worker process
 * (`partner-gateway worker`) both start from it. The context carries the stores only, never a dialect's handles
 * (D-255): `storage.handles` are for the process that opened them (tools, tests).
 */
export async function openGatewayContext(
  options: Pick<
    GatewayOptions,
    | "databasePath"
    | "databaseUrl"
    | "postgres"
    | "log"
    | "settings"
    | "masterKey"
    | "engine"
    | "now"
    | "forwarding"
    | "presetsDir"
    | "suggest"
    | "outages"
    | "tracing"
  >,
) {
  const limits = options.forwarding?.limits;
  const settings: GatewaySettings = {
    ...defaultSettings,
    ...(limits ? { upstreamLimits: limits } : {}),
    ...options.settings,
  };
  const onPostgres = options.databaseUrl !== undefined;
  // The key first: a missing MASTER_KEY fails before any database is opened.
  const sealer = new Sealer(
    resolveMasterKey({
      mode: settings.mode,
      masterKey: options.masterKey,
      databasePath: onPostgres ? undefined : options.databasePath,
    }),
  );
  // Before the database: a broken preset stops the start with its file named (D-304).
  const presets = options.presetsDir ? await PresetCatalogue.load(options.presetsDir) : new PresetCatalogue([]);
  const storage = await openStorage(
    options.databaseUrl !== undefined
      ? { databaseUrl: options.databaseUrl, ...(options.postgres ? { postgres: options.postgres } : {}) }
      : { databasePath: options.databasePath },
    options.log,
  );
  const engine = new ProfileEngine({ ...options.engine, log: options.log });
  const suggester = new ProfileSuggester({ limits: options.suggest ?? {}, log: options.log });
  const {
    handles: _handles,
    exclusively: _exclusively,
    claimEmbeddedForwarding: _claim,
    close: _close,
    ...stores
  } = storage;
  const now = options.now ?? (() => new Date());
  const log = options.log;
  const ctx: GatewayContext = {
    log,
    sealer,
    engine,
    suggester,
    settings,
    ...stores,
    outages: new StoreOutages(log, options.outages),
    // The work gets the transaction's stores and the services that touch none (D-275), never the context.
    transaction: (work, mode, scope) =>
      stores.transaction((tx) => work({ ...tx, log, now, [IN_TRANSACTION]: true }), mode, scope),
    presets,
    passwords: new PasswordHasher(settings.passwordCost),
    tracing: options.tracing ?? NO_TRACING,
    running: new Running({ mode: settings.mode, loopbackPorts: settings.webhookLoopbackPorts }),
    now,
  };
  // While a loop waits for the database, readiness's ping asks it once a second and wakes the loops when it answers.
  ctx.outages.probeWith(() => ctx.ping());
  let closed: Promise<void> | undefined;
  return {
    ctx,
    storage,
    /** Idempotent: the profile engine's workers and the suggester's thread, then the storage (checkpointer, pool). */
    close() {
      closed ??= (async () => {
        ctx.outages.close();
        await engine.close();
        await suggester.close();
        await storage.close();
      })();
      return closed;
    },
  };
}

/** Builds the gateway once, in order: context, forwarding, app, webhooks. */
export async function createGateway(options: GatewayOptions) {
  const { ctx, storage, close } = await openGatewayContext(options);
  try {
    return await startGateway(options, ctx, storage, close);
  } catch (error) {
    await close();
    throw error;
  }
}

async function startGateway(
  options: GatewayOptions,
  ctx: GatewayContext,
  storage: OpenedStorage,
  close: () => Promise<void>,
) {
  if (options.metrics) registerEngineMetrics(options.metrics.registry, ctx.engine);
  const forwarding = options.forwarding;
  // What an earlier version settled without recording what it owed (before forwarding starts settling more).
  await repairSettlements(ctx);
  // A settled submission may owe its vendor a webhook (a booking confirmation, a submission result): recorded in the
  // transaction of its outcome.
  // The embedded driver's queue is this process's: on PostgreSQL one process per database runs it (D-256).
  const embeddedClaim = forwarding && !forwarding.redis ? await storage.claimEmbeddedForwarding() : undefined;
  const forwarder = forwarding
    ? createForwardingDriver(ctx, {
        ...forwarding,
        settlement: settlementRecorder(ctx),
        // Lost with its connection (PostgreSQL restarted): nothing is sent until it is taken back (D-336).
        ...(embeddedClaim ? { ownership: embeddedClaim } : {}),
      })
    : undefined;
  const forwardingStopped = forwarder ? ctx.running.forwardingStarted(forwarder) : undefined;
  if (forwarder) {
    try {
      await forwarder.start();
    } catch (error) {
      forwardingStopped?.();
      await forwarder.close().catch(() => undefined);
      await embeddedClaim?.release();
      throw error;
    }
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
  // Every API process fetches notified records: each claims a row before it fetches (D-321). After the webhooks, whose
  // SSRF policy it shares.
  const fetcher = new Fetcher(ctx, options.fetcher);
  const fetcherStopped = ctx.running.fetcherStarted(fetcher);
  fetcher.start();
  // After the webhooks too: alert notices go out under their SSRF policy. Every API process evaluates (D-342).
  const alerts = options.alerts?.enabled === false ? undefined : new AlertEvaluator(ctx, options.alerts);
  alerts?.start();
  const opsApp = ops.separate ? createOpsApp(ctx, { metrics: options.metrics, token: ops.token }) : undefined;
  return {
    ctx,
    app,
    /** With `ops.separate`: the operations endpoints, for a listener of their own. */
    opsApp,
    forwarder,
    webhooks,
    /** The alert evaluator of this process (none when `alerts.enabled` is false). */
    alerts,
    /** The database's own handles, for tools and tests (never the capabilities': they use `ctx`'s stores). */
    database: storage.handles,
    /**
     * Runs `fn` while no other gateway process on the database runs its own: the config file at start (D-256). On
     * PostgreSQL the startup lock, so processes starting together apply it one after the other.
     */
    exclusively: <T>(fn: () => Promise<T>) => storage.exclusively(fn),
    /**
     * Graceful: in-flight upstream calls get `deadlineMs` to finish, then leases are released; webhook deliveries in
     * flight get what is left of it (D-383; none without a deadline).
     */
    async close(deadlineMs?: number) {
      const until = deadlineMs === undefined ? undefined : Date.now() + deadlineMs;
      await app.closeHooks();
      await alerts?.close();
      // Before forwarding: a record it stores is handed to forwarding.
      await fetcher.close();
      fetcherStopped();
      await forwarder?.close(deadlineMs);
      forwardingStopped?.();
      await embeddedClaim?.release();
      await webhooks.close(until === undefined ? undefined : Math.max(0, until - Date.now()));
      await queues?.close();
      await close();
    },
  };
}

export type Gateway = Awaited<ReturnType<typeof createGateway>>;
