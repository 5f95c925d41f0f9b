import { randomBytes } from "node:crypto";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { HttpMetrics } from "../http/metrics.js";
import { listen } from "../http/server.js";
import { createLogger, type Logger } from "../log.js";
import { SandboxAdmin } from "./admin/sandbox-admin.js";
import { seedIfEmpty } from "./admin/services/reset-to-seed.js";
import { buildSandboxApp } from "./app.js";
import { type Clock, systemClock } from "./clock.js";
import { openSandboxDb } from "./db/client.js";
import type { SandboxEnv } from "./env.js";
import { FaultInjector } from "./faults/fault-injector.js";
import { DocumentUrls } from "./installer/documents/document-urls.js";
import { InFlightKeys } from "./installer/idempotency/in-flight.js";
import { type LimitsOverride, resolveLimits } from "./limits/config.js";
import { RateLimiter } from "./limits/limiter.js";
import { type TestKey, testKeysOf } from "./seed/apply-seed.js";
import { loadSeed } from "./seed/load-seed.js";
import type { Seed } from "./seed/seed-schema.js";
import { TrafficStats } from "./traffic-stats.js";
import { resolveWebhookConfig, type WebhookOptions } from "./webhooks/config.js";
import { WebhookDispatcher } from "./webhooks/dispatcher/dispatcher.js";
import { ensureSeedOwners } from "./webhooks/session/owner-accounts.js";

export type { SandboxAdmin } from "./admin/sandbox-admin.js";
export type { SandboxStats } from "./admin/services/read-stats.js";
export type { FaultSpecInput } from "./faults/fault-spec.js";
export type { LimitRule, LimitsConfig, LimitsOverride } from "./limits/config.js";
export { SPEC_LIMITS } from "./limits/config.js";
export type { TestKey } from "./seed/apply-seed.js";
export { DEFAULT_SEED_PATH, SeedError } from "./seed/load-seed.js";
export { DEFAULT_RETRY_DELAYS_MS, type WebhookOptions } from "./webhooks/config.js";
export { seedOwnerPassword } from "./webhooks/session/owner-credentials.js";
export type { OwnerSession } from "./webhooks/session/sessions.js";

export interface SandboxOptions {
  log?: Logger;
  /** `:memory:` (default) or a SQLite file whose state survives a restart. */
  dbPath?: string;
  /** Seed file (default `seeds/default.json`); ignored when `seed` is given. */
  seedPath?: string;
  seed?: Seed;
  /** Bearer token of the admin API; a random one is generated when absent. */
  adminToken?: string;
  /** Per-level overrides of §8's limits, e.g. `{ key: { limit: 5, windowMs: 1000 } }`. */
  limits?: LimitsOverride;
  clock?: Clock;
  /** Randomness of fault injection (tests pin it). */
  random?: () => number;
  /** Webhook deliveries (§6.4): retry waits, response wait, polling, concurrency, rotation overlap. */
  webhooks?: WebhookOptions;
}

export interface Sandbox {
  app: OpenAPIHono<SandboxEnv>;
  admin: SandboxAdmin;
  adminToken: string;
  /** The seed's `svc_test_` keys: public fixtures, fine to print. */
  testKeys: TestKey[];
  /** Stops the webhook dispatcher and closes the database. */
  close(): void;
}

/**
 * Builds the sandbox in-process: database (migrated, seeded when empty), limiter, faults, the webhook dispatcher
 * (started here, stopped by `close`), app.
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const log = options.log ?? createLogger({ level: "silent" });
  const clock = options.clock ?? systemClock;
  const seed = options.seed ?? loadSeed(options.seedPath);
  const { db, sqlite } = openSandboxDb(options.dbPath ?? ":memory:");
  const ctx = { db, clock, documentUrls: new DocumentUrls() };
  seedIfEmpty({ ctx, input: { seed } });
  ensureSeedOwners(db, new Date(clock.now()).toISOString());

  const webhookConfig = resolveWebhookConfig(options.webhooks);
  const dispatcher = new WebhookDispatcher(ctx, webhookConfig, log.child({ component: "sandbox-webhooks" }));
  const admin = new SandboxAdmin(
    ctx,
    new RateLimiter(resolveLimits(options.limits), clock),
    new TrafficStats(),
    new FaultInjector(options.random, clock),
    seed,
    dispatcher,
  );
  const adminToken = options.adminToken ?? randomBytes(24).toString("base64url");
  const app = buildSandboxApp({
    log,
    metrics: new HttpMetrics("sandbox"),
    admin,
    adminToken,
    webhooks: { config: webhookConfig, wake: () => dispatcher.wake() },
    installer: { inFlight: new InFlightKeys() },
    ready: () => {
      sqlite.prepare("select 1").get();
    },
  });
  dispatcher.start();
  const close = () => {
    dispatcher.stop();
    sqlite.close();
  };
  return { app, admin, adminToken, testKeys: testKeysOf(seed), close };
}

export interface StartSandboxOptions extends SandboxOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  log: Logger;
}

export interface RunningSandbox {
  url: string;
  port: number;
  adminToken: string;
  testKeys: TestKey[];
  admin: SandboxAdmin;
  close(): Promise<void>;
}

/** Starts the sandbox on a port: `partner-gateway sandbox` runs it alone, the gateway's `serve` embeds it. */
export async function startSandbox(options: StartSandboxOptions): Promise<RunningSandbox> {
  const sandbox = createSandbox(options);
  const server = await listen(sandbox.app, { host: options.host, port: options.port });
  options.log.info({ url: server.url }, "sandbox listening");
  return {
    url: server.url,
    port: server.port,
    adminToken: sandbox.adminToken,
    testKeys: sandbox.testKeys,
    admin: sandbox.admin,
    close: async () => {
      await server.close();
      sandbox.close();
    },
  };
}
