import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vi } from "vitest";
import { createGateway, type Gateway, type GatewayOptions } from "../../src/gateway/create-gateway.js";
import { createForwardingWorker, type ForwardingWorker } from "../../src/gateway/create-worker.js";
import { createUpstreamCredential } from "../../src/gateway/credentials/upstream-credentials.js";
import type { ForwardingLimits } from "../../src/gateway/forwarding/limits.js";
import type { SendRetryPolicy } from "../../src/gateway/forwarding/send-retry.js";
import { createVendorKey } from "../../src/gateway/keys/vendor-keys.js";
import { createCompany } from "../../src/gateway/tenants/create-company.js";
import type { Tracing } from "../../src/gateway/tracing/index.js";
import { loopbackWebhookPorts } from "../../src/gateway/webhooks/loopback-ports.js";
import { listen, type RunningServer } from "../../src/http/server.js";
import { createLogger } from "../../src/log.js";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/index.js";
import { TEST_PASSWORD_COST } from "./gateway.js";
import { dropPrefix, SHARED_REDIS_URL, uniquePrefix } from "./redis.js";
import { testStorage } from "./test-store.js";

export type DriverName = "embedded" | "bullmq";

export interface RigOptions {
  /** Limits per window, the same at the sandbox (the referee) and in the gateway. */
  perKey: number;
  perCompany: number;
  egress: number;
  windowMs: number;
  retry?: Partial<SendRetryPolicy>;
  timeoutMs?: number;
  databasePath?: string;
  /** `bullmq`: the gateway serves the API only and a separate worker (its own database and Redis connections) forwards. */
  driver?: DriverName;
  /** The Redis of the BullMQ driver (default: the shared one, under a prefix of this rig's own). */
  redisUrl?: string;
  /** BullMQ driver: start a worker in this process (default) or leave forwarding to worker processes. */
  inProcessWorker?: boolean;
  /** The presets the gateway offers (hook connections), and how it fetches notified records. */
  presetsDir?: string;
  fetcher?: GatewayOptions["fetcher"];
  /** The profile engine's pool and time limit. */
  engine?: GatewayOptions["engine"];
  /** The alert evaluator (its interval, SMTP), webhook delivery's schedules and the context's clock. */
  alerts?: GatewayOptions["alerts"];
  webhooks?: GatewayOptions["webhooks"];
  now?: GatewayOptions["now"];
  /** Tracing of the gateway (`api`) and of the BullMQ driver's workers (`worker`); none when unset. */
  tracing?: { api?: Tracing; worker?: Tracing };
  /** Where forwarding sends, given the sandbox's URL (a recording proxy in front of it); the sandbox itself if unset. */
  upstream?: (sandboxUrl: string) => Promise<string>;
}

export interface RigCompany {
  gatewayCompanyId: string;
  sandboxCompanyId: string;
  sandboxPersonId: string | undefined;
  credentials: { id: string; upstreamKey: string }[];
  vendorKeys: string[];
}

/**
 * The sandbox as the upstream (the referee, with exact limits) and a gateway forwarding to it, both listening on
 * free ports. Companies and credentials are made on both sides. With the BullMQ driver the gateway is API-only and
 * forwarding runs in a worker of its own, as a `partner-gateway worker` process would.
 */
export async function startRig(options: RigOptions) {
  const windowMs = options.windowMs;
  const sandbox: RunningSandbox = await startSandbox({
    host: "127.0.0.1",
    port: 0,
    log: createLogger({ level: "silent" }),
    limits: {
      key: { limit: options.perKey, windowMs },
      owner: { limit: options.perCompany, windowMs },
      ip: { limit: options.egress, windowMs },
    },
  });
  const limits: ForwardingLimits = {
    perCredential: { limit: options.perKey, windowMs },
    perCompany: { limit: options.perCompany, windowMs },
    egress: { limit: options.egress, windowMs },
    marginMs: 1,
  };
  const driver = options.driver ?? "embedded";
  const masterKey = randomBytes(32).toString("hex");
  const databasePath =
    options.databasePath ??
    (driver === "bullmq" ? join(mkdtempSync(join(tmpdir(), "pg-rig-")), "gateway.db") : ":memory:");
  const redis = { url: options.redisUrl ?? SHARED_REDIS_URL, prefix: uniquePrefix("rig"), reconcileMs: 1_000 };
  const forwarding = {
    upstreamUrl: options.upstream ? await options.upstream(sandbox.url) : sandbox.url,
    limits,
    retry: { baseMs: 50, capMs: 200, maxAttempts: 4, horizonMs: 60_000, ...options.retry },
    timeoutMs: options.timeoutMs ?? 2_000,
  };
  // TEST_STORE=postgres: the path maps to a database of its own, the same one for the workers (test-store.ts).
  const storage = await testStorage(databasePath);
  const gateway: Gateway = await createGateway({
    ...storage,
    log: createLogger({ level: "silent" }),
    masterKey,
    // Listening on 127.0.0.1, as `serve` derives it from HOST: webhooks may reach any local port.
    settings: {
      intakeLimit: { ratePerSecond: 100_000, burst: 100_000 },
      webhookLoopbackPorts: loopbackWebhookPorts("127.0.0.1", []),
      passwordCost: TEST_PASSWORD_COST,
    },
    forwarding: driver === "bullmq" ? { ...forwarding, redis: { ...redis, api: true, worker: false } } : forwarding,
    ...(options.presetsDir ? { presetsDir: options.presetsDir } : {}),
    ...(options.fetcher ? { fetcher: options.fetcher } : {}),
    ...(options.engine ? { engine: options.engine } : {}),
    ...(options.alerts ? { alerts: options.alerts } : {}),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.tracing?.api ? { tracing: options.tracing.api } : {}),
  });
  const workers: ForwardingWorker[] = [];
  /** Another forwarding worker on the same database and Redis (BullMQ driver). */
  const startWorker = async () => {
    const worker = await createForwardingWorker({
      ...storage,
      log: createLogger({ level: "silent" }),
      masterKey,
      forwarding: { ...forwarding, redis },
      ...(options.tracing?.worker ? { tracing: options.tracing.worker } : {}),
    });
    workers.push(worker);
    await worker.started;
    return worker;
  };
  if (driver === "bullmq" && options.inProcessWorker !== false) {
    await startWorker();
    await until(() => workers.some((w) => w.driver.leading), 10_000);
  }
  const server: RunningServer = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
  const { ctx } = gateway;
  // Hook URLs on the address it listens on (PUBLIC_URL, which `serve` derives from HOST and PORT).
  ctx.settings.publicUrl = server.url;

  return {
    sandbox,
    gateway,
    driver,
    databasePath,
    masterKey,
    redis,
    forwarding,
    workers,
    startWorker,
    url: server.url,
    /** Submissions queued in the dispatcher, wherever it runs. */
    backlog(): number {
      return (gateway.forwarder?.backlog ?? 0) + workers.reduce((n, w) => n + w.driver.backlog, 0);
    },
    /** A company on both sides, with `credentials` upstream keys and one canonical vendor key per credential. */
    async addCompany(name: string, credentials = 1): Promise<RigCompany> {
      const upstream = sandbox.admin.createCompany({
        name,
        kind: "company",
        people: [{ name: `${name} rep`, email: `rep@${name.toLowerCase().replaceAll(" ", "-")}.test` }],
        contractors: [],
      });
      const personId = upstream.people[0]?.id;
      const company = await createCompany({ ctx, input: { name } });
      const result: RigCompany = {
        gatewayCompanyId: company.id,
        sandboxCompanyId: upstream.id,
        sandboxPersonId: personId,
        credentials: [],
        vendorKeys: [],
      };
      for (let i = 0; i < credentials; i++) {
        const key = sandbox.admin.createKey({ companyId: upstream.id, kind: "general", personId });
        const credential = await createUpstreamCredential({
          ctx,
          companyId: company.id,
          input: { name: `general-${i}`, value: key.key },
        });
        result.credentials.push({ id: credential.id, upstreamKey: key.key });
        const vendor = await createVendorKey({
          ctx,
          companyId: company.id,
          input: {
            name: `vendor-${i}`,
            partnerType: "booking_vendor",
            scopes: ["leads:write", "appointments:write"],
            credentialId: credential.id,
          },
        });
        result.vendorKeys.push(vendor.key);
      }
      return result;
    },
    async close() {
      await server.close();
      for (const worker of workers) await worker.close(1_000);
      await gateway.close(1_000);
      await sandbox.close();
      if (driver === "bullmq") await dropPrefix(redis.url, redis.prefix);
    },
  };
}

export type Rig = Awaited<ReturnType<typeof startRig>>;

let sequence = 0;

/** A valid canonical lead at a unique address (so the sandbox creates rather than merges). */
export function lead(overrides: Record<string, unknown> = {}) {
  const n = ++sequence;
  return {
    fullName: `Customer ${n}`,
    email: `customer${n}@example.com`,
    phone: "+1 555 010 0000",
    address: `${n} Test Street, Springfield, IL 62701`,
    ...overrides,
  };
}

/** The probe's first value that is not undefined or false, polled every `stepMs`; fails after `timeoutMs`. */
export async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
  stepMs = 25,
): Promise<T> {
  try {
    return (await vi.waitUntil(probe, { timeout: timeoutMs, interval: stepMs })) as T;
  } catch (error) {
    // The probe's own failure as it is; a timeout named as such.
    if (error instanceof Error && error.message.startsWith("Timed out in waitUntil")) {
      throw new Error("condition not met in time", { cause: error });
    }
    throw error;
  }
}
