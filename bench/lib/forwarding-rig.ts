import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGateway } from "../../src/gateway/create-gateway.js";
import { createUpstreamCredential } from "../../src/gateway/credentials/upstream-credentials.js";
import type { ForwardingLimits, LimitRule } from "../../src/gateway/forwarding/limits.js";
import { acceptSubmission } from "../../src/gateway/intake/accept-submission.js";
import { authenticateVendorKey, type VendorKey } from "../../src/gateway/intake/authenticate-vendor-key.js";
import { createVendorKey } from "../../src/gateway/keys/vendor-keys.js";
import { createCompany } from "../../src/gateway/tenants/create-company.js";
import { listen } from "../../src/http/server.js";
import { createLogger } from "../../src/log.js";
import { startChild } from "./child.js";
import { dropRedisPrefix } from "./redis.js";

export type Driver = "embedded" | "bullmq";

export interface BenchRigOptions {
  driver: Driver;
  /** The gateway's limits. */
  limits: ForwardingLimits;
  /** The sandbox's, the referee's: per key, per owner, per IP. */
  upstream: { key: LimitRule; owner: LimitRule; ip: LimitRule };
  /** Companies in order, with their credentials and their "by arrangement" figures per minute (§8). */
  companies: { name: string; credentials: number; perCompany?: number }[];
  redisUrl: string;
  /** BullMQ: worker processes (the bench process is the API). */
  workers: number;
  /** PostgreSQL (a scratch database the bench made): the gateway and its workers on it instead of a SQLite file. */
  databaseUrl?: string;
}

/**
 * What `npm run bench:drain` runs each case on: the sandbox in its own process, a fresh gateway database, the gateway
 * in this process listening on a free port, and with BullMQ worker processes of their own on the same database (the
 * SQLite file, or PostgreSQL with `databaseUrl`) and Redis (under a prefix of the run's own). Companies exist on both sides, one vendor key per credential.
 */
export async function startBenchRig(options: BenchRigOptions) {
  const rule = (r: LimitRule) => `${r.limit}/${r.windowMs}`;
  const { upstream: limits } = options;
  const upstream = await startChild<{ url: string; adminToken: string; companies: { id: string; keys: string[] }[] }>(
    "bench/sandbox-server.ts",
    [
      rule(limits.key),
      rule(limits.owner),
      rule(limits.ip),
      String(limits.ip.windowMs),
      ...options.companies.map((c) => String(c.credentials)),
    ],
  );
  const databasePath = join(mkdtempSync(join(tmpdir(), "pg-drain-")), "gateway.db");
  const masterKey = randomBytes(32).toString("hex");
  const prefix = `bench-drain-${randomBytes(4).toString("hex")}`;
  const gateway = await createGateway({
    databasePath,
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
    log: createLogger({ level: "silent" }),
    masterKey,
    settings: { intakeLimit: { ratePerSecond: 1e9, burst: 1e9 } },
    forwarding: {
      upstreamUrl: upstream.info.url,
      limits: options.limits,
      ...(options.driver === "bullmq" ? { redis: { url: options.redisUrl, prefix, api: true, worker: false } } : {}),
    },
  });
  const { ctx } = gateway;
  const server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
  // BullMQ: forwarding runs in worker processes of their own, on the same database and Redis.
  const workers: ChildProcess[] = [];
  if (options.driver === "bullmq") {
    const args = [
      databasePath,
      upstream.info.url,
      options.redisUrl,
      prefix,
      masterKey,
      JSON.stringify(options.limits),
      ...(options.databaseUrl ? [options.databaseUrl] : []),
    ];
    for (let i = 0; i < options.workers; i++) {
      workers.push((await startChild<{ pid: number }>("bench/forwarding-worker.ts", args)).child);
    }
  }

  const companies: { id: string; keys: { secret: string; key: VendorKey }[] }[] = [];
  for (const [i, upstreamCompany] of upstream.info.companies.entries()) {
    const spec = options.companies[i];
    const company = await createCompany({
      ctx,
      input: { name: spec?.name ?? `Company ${i}`, limits: spec?.perCompany ? { perCompany: spec.perCompany } : null },
    });
    const keys: { secret: string; key: VendorKey }[] = [];
    for (const [j, value] of upstreamCompany.keys.entries()) {
      const credential = await createUpstreamCredential({
        ctx,
        companyId: company.id,
        input: { name: `c${j}`, value },
      });
      const key = await createVendorKey({
        ctx,
        companyId: company.id,
        input: { name: `v${j}`, partnerType: "lead_source", scopes: ["leads:write"], credentialId: credential.id },
      });
      keys.push({ secret: key.key, key: await authenticateVendorKey(ctx, key.key) });
    }
    companies.push({ id: company.id, keys });
  }

  let sequence = 0;
  return {
    gateway,
    ctx,
    url: server.url,
    upstream,
    companies,
    /** A fresh canonical lead (a new address each time, so the platform creates rather than merges). */
    lead() {
      const n = ++sequence;
      return {
        fullName: `Customer ${n}`,
        email: `c${n}@example.com`,
        phone: "+1 555 010 0000",
        address: `${n} Drain Road, Springfield, IL 62701`,
      };
    },
    /** Accepts a lead as intake does after mapping (no HTTP): the backlog's way in. */
    submit(companyIndex: number, keyIndex: number) {
      const company = companies[companyIndex];
      const key = company?.keys[keyIndex % company.keys.length]?.key;
      if (!key) throw new Error("no key");
      const payload = this.lead();
      return acceptSubmission({ ctx, key, input: { kind: "lead", raw: JSON.stringify(payload), payload } });
    },
    /** Submissions forwarded or failed so far. */
    async settled(): Promise<number> {
      const [row] = await this.query<{ n: number | string }>(
        "select count(*) n from submissions where status in ('forwarded','failed')",
      );
      return Number(row?.n ?? 0);
    },
    /**
     * Raw SQL on the gateway's database, whichever store it is (`?` placeholders; PostgreSQL's bigint and count come
     * back as strings: the caller converts). The bench reads what forwarding did from here, never from the stores.
     */
    async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
      const handles = gateway.database;
      if (handles.dialect === "sqlite") return handles.database.sqlite.prepare(sql).all(...params) as T[];
      let n = 0;
      const result = await handles.database.pool.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      );
      return result.rows as T[];
    },
    /** The referee's counters (§8): what the sandbox admitted and refused. */
    async upstreamTotals(): Promise<{ admitted: number; limited: number }> {
      const res = await fetch(`${upstream.info.url}/sandbox/admin/stats`, {
        headers: { authorization: `Bearer ${upstream.info.adminToken}` },
      });
      return ((await res.json()) as { traffic: { totals: { admitted: number; limited: number } } }).traffic.totals;
    },
    async close(): Promise<void> {
      for (const worker of workers) worker.kill("SIGTERM");
      await Promise.all(workers.map((w) => new Promise((r) => (w.exitCode === null ? w.once("exit", r) : r(null)))));
      await server.close();
      await gateway.close(1_000);
      await upstream.stop();
      if (options.driver === "bullmq") await dropRedisPrefix(options.redisUrl, prefix);
    },
  };
}

export type BenchRig = Awaited<ReturnType<typeof startBenchRig>>;

/** Resolves once `done()` holds, looking every `stepMs`. */
export async function poll(done: () => boolean | Promise<boolean>, stepMs = 100): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, stepMs));
}
