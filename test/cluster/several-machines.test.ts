import { randomBytes } from "node:crypto";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { maxMinShares, windowedFairness } from "../../bench/lib/fairness.js";
import { postgresAvailable, usePostgresDatabase } from "../helpers/postgres.js";
import { dropPrefix, redisForTests, SHARED_REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { type Machine, machineDir, sqliteFiles, startCli, startScript } from "./machines.js";

/**
 * Several machines (README, "Several machines"): two `serve --api-only` processes and two `worker` processes, each in
 * an empty folder of its own, share nothing but PostgreSQL (DATABASE_URL), Redis (REDIS_URL) and one upstream, a
 * sandbox process (UPSTREAM_URL). A burst of leads and bookings over four companies goes through both API processes;
 * mid-drain one API process and the worker that is sending are killed with SIGKILL, and the others finish the work.
 *
 * The limits are the spec's policy on windows of two seconds (`upstreamLimits.windowMs`, D-252), the sandbox's the same
 * (the referee), so the drain reaches its paced regime at once: 200 submissions at 8 a second, the limiter and not the
 * machine the bottleneck even on a loaded one. Measures and their reasons: docs/decisions.md, D-253.
 */

const W = 2_000;
const PER_CREDENTIAL = 6;
const PER_COMPANY = 8;
const EGRESS = 16;
/** Per company: a lead source's leads and a booking vendor's lead+appointment pairs, in units of these. */
const LEADS = 20;
const PAIRS = 10;
const WEIGHTS = [2, 1, 1, 1];
/** The platform's answer comes this late after it acted, so that sends are in flight when a worker dies. */
const ANSWER_LATENCY_MS = 400;

const pgUp = await postgresAvailable();
const redisUp = await redisForTests();

describe.skipIf(!pgUp || !redisUp)("several machines: API processes and workers on PostgreSQL and Redis", () => {
  const database = usePostgresDatabase({ migrate: false });
  const prefix = uniquePrefix("machines");
  const machines: Machine[] = [];
  let pool: pg.Pool | undefined;
  afterAll(async () => {
    await Promise.all(machines.map((m) => m.stop()));
    await pool?.end();
    await dropPrefix(SHARED_REDIS_URL, prefix);
  });

  it("loses nothing, earns no 429, stays fair and books once when an API process and a sending worker die mid-drain", async () => {
    const t0 = Date.now();
    const phase: Record<string, number> = {};
    const mark = (name: string) => {
      phase[name] = Date.now() - t0;
    };

    // The platform: one sandbox process, the referee of the limits (§8), on a database file of its own.
    const sandboxDir = machineDir("sandbox");
    const sandbox = startScript(
      "sandbox",
      sandboxDir,
      "bench/sandbox-server.ts",
      [`${PER_CREDENTIAL}`, `${PER_COMPANY}`, `${EGRESS}`, `${W}`, ...WEIGHTS.map(() => "2")],
      { SANDBOX_DB_PATH: join(sandboxDir, "sandbox.db") },
    );
    machines.push(sandbox);
    // The schema first, as a deployment does before it starts the gateway's processes.
    const env = {
      DATABASE_URL: database.url,
      MASTER_KEY: randomBytes(32).toString("hex"),
      REDIS_URL: SHARED_REDIS_URL,
      REDIS_PREFIX: prefix,
      LOG_LEVEL: "info",
      PG_POOL_MAX: "4",
    };
    const migrateDir = machineDir("migrate");
    const migrate = startCli("migrate", migrateDir, ["migrate"], env);
    const upstream = JSON.parse(await sandbox.line((l) => l.startsWith("{"))) as {
      url: string;
      adminToken: string;
      companies: { id: string; keys: string[] }[];
    };
    expect(await migrate.exited, migrate.tail()).toEqual({ code: 0, signal: null });
    // The platform acts on each request at once and answers 400 ms later: a worker that dies holds sends the platform
    // already has, which come back when their leases expire and are sent again (a replay, a merge).
    const admin = { "content-type": "application/json", authorization: `Bearer ${upstream.adminToken}` };
    const fault = await fetch(`${upstream.url}/sandbox/admin/faults`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ route: "*", answerLatencyMs: ANSWER_LATENCY_MS }),
    });
    expect(fault.status).toBe(201);
    mark("sandbox and migrations");

    // Companies, their general keys at the platform and their vendor keys: one config file, a copy on each machine.
    const vendorKey = (c: number, role: string) => `svc_test_machine${role}${c}000.machine_secret_${role}_${c}_00001`;
    const config = {
      mode: "sandbox",
      intakeLimit: { ratePerSecond: 100_000, burst: 100_000 },
      upstreamLimits: {
        perCredentialPerMinute: (PER_CREDENTIAL * 60_000) / W,
        perCompanyPerMinute: (PER_COMPANY * 60_000) / W,
        egressPerMinute: (EGRESS * 60_000) / W,
        windowMs: W,
      },
      companies: upstream.companies.map((company, c) => ({
        id: `machine${c}`,
        name: `Machine Co ${c}`,
        credentials: company.keys.map((value, k) => ({ name: `general${k}`, value })),
        vendorKeys: [
          {
            name: "leads",
            partnerType: "lead_source",
            scopes: ["leads:write"],
            credential: "general0",
            key: vendorKey(c, "leads"),
          },
          {
            name: "bookings",
            partnerType: "booking_vendor",
            scopes: ["leads:write", "appointments:write"],
            credential: "general1",
            key: vendorKey(c, "books"),
          },
        ],
      })),
    };
    const machineEnv = (dir: string) => {
      writeFileSync(join(dir, "config.json"), JSON.stringify(config));
      return {
        ...env,
        CONFIG_FILE: join(dir, "config.json"),
        UPSTREAM_URL: upstream.url,
        HOST: "127.0.0.1",
        PORT: "0",
      };
    };
    const apiDirs = [machineDir("api0"), machineDir("api1")];
    const workerDirs = [machineDir("worker0"), machineDir("worker1")];
    // All four at once: the config file is applied under the startup lock, by one process at a time.
    const apis = apiDirs.map((dir, i) => startCli(`api${i}`, dir, ["serve", "--api-only"], machineEnv(dir)));
    const workers = workerDirs.map((dir, i) => startCli(`worker${i}`, dir, ["worker"], machineEnv(dir)));
    machines.push(...apis, ...workers);
    const urls = await Promise.all(
      apis.map(
        async (api) =>
          /gateway listening on (http:\/\/\S+)/.exec(await api.line((l) => /gateway listening on/.test(l)))?.[1] ?? "",
      ),
    );
    mark("API processes started");
    const workersStarted = Promise.all(workers.map((w) => w.line((l) => l.includes("forwarding worker running"))));

    // What the gateway holds, read the way an operator would: SQL on its database.
    const gatewayDb = new pg.Pool({ connectionString: database.url, max: 2 });
    pool = gatewayDb;
    const query = async <T>(sql: string): Promise<T[]> => (await gatewayDb.query(sql)).rows as T[];

    // The burst: vendors post through both API processes; a post that meets a dead one goes to the other with the same
    // idempotency key, so an accepted post is replayed there, never accepted twice.
    const accepted = new Set<string>();
    const idsByKey = new Map<string, Set<string>>();
    let apiTurn = 0;
    const post = async (path: string, key: string, body: object, idempotencyKey: string): Promise<string> => {
      const first = apiTurn++;
      // A post that fails (a dead process, a kept-alive socket closed under it) goes to the next process at once: one
      // is always up.
      for (let tries = 0; tries < 5 * urls.length; tries++) {
        const url = urls[(first + tries) % urls.length];
        let res: Response;
        try {
          res = await fetch(`${url}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-api-key": key, "idempotency-key": idempotencyKey },
            body: JSON.stringify(body),
          });
        } catch {
          continue;
        }
        if (res.status !== 202 && res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        const { submissionId } = (await res.json()) as { submissionId: string };
        accepted.add(submissionId);
        const seen = idsByKey.get(`${key} ${idempotencyKey}`) ?? new Set<string>();
        idsByKey.set(`${key} ${idempotencyKey}`, seen.add(submissionId));
        return submissionId;
      }
      throw new Error(`${path}: no API process answered`);
    };
    // A new address each time, so the platform creates a lead rather than merging (a merge means received twice).
    let address = 1000;
    const lead = (n: string) => ({
      fullName: `Customer ${n}`,
      email: `${n}@machines.test`,
      phone: "+1 555 010 0000",
      address: `${address++} Machine Road, Springfield, IL 62701`,
    });
    const tasks: (() => Promise<void>)[] = [];
    WEIGHTS.forEach((weight, c) => {
      for (let i = 0; i < LEADS * weight; i++) {
        tasks.push(async () => {
          await post("/api/inbound/leads", vendorKey(c, "leads"), lead(`l${c}x${i}`), `lead-${c}-${i}`);
        });
      }
      for (let i = 0; i < PAIRS * weight; i++) {
        tasks.push(async () => {
          const key = vendorKey(c, "books");
          const leadId = await post("/api/inbound/leads", key, lead(`b${c}x${i}`), `booked-lead-${c}-${i}`);
          const appointment = {
            leadId,
            startsAt: "2026-12-01T15:00:00Z",
            endsAt: "2026-12-01T16:00:00Z",
            idempotencyKey: `appointment-${c}-${i}`,
          };
          await post("/api/inbound/appointments", key, appointment, `appointment-${c}-${i}`);
        });
      }
    });
    tasks.sort(() => Math.random() - 0.5);
    const total = WEIGHTS.reduce((sum, w) => sum + w * (LEADS + 2 * PAIRS), 0);
    let next = 0;
    const vendors = Array.from({ length: 12 }, async () => {
      for (let task = tasks[next++]; task; task = tasks[next++]) await task();
    });
    // Fairness is judged once the whole burst is in: before, a company's share is what its vendors had posted so far.
    const burstAccepted = Promise.all(vendors).then(() => {
      mark("burst accepted");
      return Date.now();
    });

    const count = async (where: string) =>
      Number((await query<{ n: number }>(`select count(*) as n from submissions where ${where}`))[0]?.n ?? 0);
    const pollUntil = async (done: () => Promise<boolean>, what: string, timeoutMs = 60_000) => {
      try {
        await vi.waitUntil(done, { timeout: timeoutMs, interval: 50 });
      } catch (error) {
        throw new Error(`timed out waiting for ${what}`, { cause: error });
      }
    };

    // One API process dies while vendors are still posting.
    await pollUntil(async () => accepted.size >= total * 0.4, "40 % of the burst accepted");
    const [deadApi] = apis;
    await deadApi?.kill9();
    mark("API process killed");

    await workersStarted;
    mark("workers started");

    // The sending worker dies mid-drain with sends in flight. While another worker lives, the dispatching one sends
    // nothing (its event loop serves dispatch alone): every send in flight is the other's, and that one is killed.
    await pollUntil(async () => (await count("status = 'forwarded'")) >= total * 0.3, "30 % forwarded");
    const dispatcher = [...workers].sort((a, b) => lastTakeover(b) - lastTakeover(a))[0];
    const sender = workers.find((w) => w !== dispatcher);
    if (!dispatcher || !sender || lastTakeover(dispatcher) < 0) throw new Error("no worker took over dispatching");
    await pollUntil(async () => (await count("status = 'forwarding'")) >= 2, "sends in flight", 20_000);
    await sender.kill9();
    // Every send in flight was the dead worker's: the dispatcher starts sending only once the dead one's presence has
    // expired (seconds later), and these stay in flight until their leases expire.
    const held = new Set(
      (await query<{ id: string }>("select id from submissions where status = 'forwarding'")).map((r) => r.id),
    );
    mark("sending worker killed");

    const burstAcceptedAt = await burstAccepted;
    await pollUntil(
      async () => (await count("status in ('forwarded', 'failed')")) >= total,
      "every submission settled",
      90_000,
    );
    mark("drained");

    // Two API processes applied the config file at once, one after the other under the startup lock: the second found
    // nothing to change (no credential rotated, nothing created twice).
    const seeded = await query<{ companies: string; credentials: string; rotated: string; keys: string }>(
      `select (select count(*) from companies) as companies, (select count(*) from upstream_credentials) as credentials,
       (select count(*) from upstream_credentials where version > 1) as rotated, (select count(*) from vendor_keys) as keys`,
    );
    expect(seeded.map((r) => Object.values(r).map(Number))).toEqual([
      [WEIGHTS.length, 2 * WEIGHTS.length, 0, 2 * WEIGHTS.length],
    ]);

    // Nothing lost: every accepted submission is in the database, once, and forwarded.
    expect([...idsByKey].filter(([, ids]) => ids.size > 1)).toEqual([]);
    expect(accepted.size).toBe(total);
    const rows = (
      await query<{
        id: string;
        company_id: string;
        kind: string;
        status: string;
        upstream_idempotency_key: string | null;
        result: string | { leadId?: string; appointmentId?: string } | null;
      }>("select id, company_id, kind, status, upstream_idempotency_key, result from submissions")
    ).map((r) => ({
      ...r,
      result: (typeof r.result === "string" ? JSON.parse(r.result) : r.result) as {
        leadId?: string;
        appointmentId?: string;
      } | null,
    }));
    expect(rows.map((r) => r.id).sort()).toEqual([...accepted].sort());
    expect(rows.filter((r) => r.status !== "forwarded")).toEqual([]);

    // The referee: no 429 at the platform (§8), and its counters do count (positive control below).
    const stats = async () =>
      (await (
        await fetch(`${upstream.url}/sandbox/admin/stats`, {
          headers: { authorization: `Bearer ${upstream.adminToken}` },
        })
      ).json()) as {
        traffic: { totals: { admitted: number; limited: number } };
        appointments: { appointmentId: string; companyId: string; idempotencyKey: string; replays: number }[];
      };
    const referee = await stats();
    expect(referee.traffic.totals.limited).toBe(0);
    expect(referee.traffic.totals.admitted).toBeGreaterThanOrEqual(total);

    // No appointment booked twice: one per booking, under the idempotency key the gateway derived for it.
    const ours = new Set(upstream.companies.map((c) => c.id));
    const appointments = referee.appointments.filter((a) => ours.has(a.companyId));
    const booked = new Map(appointments.map((a) => [a.appointmentId, a]));
    const bookings = rows.filter((r) => r.kind === "appointment");
    expect(appointments).toHaveLength(bookings.length);
    expect(new Set(appointments.map((a) => a.idempotencyKey)).size).toBe(bookings.length);
    for (const booking of bookings) {
      expect(booked.get(booking.result?.appointmentId ?? "")?.idempotencyKey).toBe(booking.upstream_idempotency_key);
    }
    // Every attempt of a booking carried that same key.
    const attemptKeys = await query<{ submission_id: string; idempotency_key: string | null }>(
      "select a.submission_id, a.idempotency_key from submission_attempts a join submissions s on s.id = a.submission_id where s.kind = 'appointment'",
    );
    const keyOf = new Map(bookings.map((b) => [b.id, b.upstream_idempotency_key]));
    expect(attemptKeys.filter((a) => a.idempotency_key !== keyOf.get(a.submission_id))).toEqual([]);

    // Sent twice only what the dead worker was sending: a replayed booking (same key, §4.2), or a lead the platform
    // received twice (merged into itself, §3.3: leads carry no idempotency key).
    const platform = new Database(join(sandboxDir, "sandbox.db"), { readonly: true, fileMustExist: true });
    const companies = [...ours].map(() => "?").join(",");
    const receivedTwice = platform
      .prepare(
        `select lead_id as leadId, count(*) as n from lead_submissions where company_id in (${companies}) group by lead_id having count(*) > 1`,
      )
      .all(...ours) as { leadId: string; n: number }[];
    const leadsReceived = (
      platform
        .prepare(`select count(*) as n from lead_submissions where company_id in (${companies})`)
        .get(...ours) as {
        n: number;
      }
    ).n;
    platform.close();
    const leadRows = rows.filter((r) => r.kind === "lead");
    const bySandboxLead = new Map(leadRows.map((r) => [r.result?.leadId ?? "", r.id]));
    const resentLeads = receivedTwice.map((l) => bySandboxLead.get(l.leadId) ?? `unknown ${l.leadId}`);
    const replayedBookings = appointments
      .filter((a) => a.replays > 0)
      .map(
        (a) => bookings.find((b) => b.result?.appointmentId === a.appointmentId)?.id ?? `unknown ${a.appointmentId}`,
      );
    const resent = [...resentLeads, ...replayedBookings];
    expect(resent.filter((id) => !held.has(id))).toEqual([]);
    // Positive control: the kill did catch sends in flight (the platform had them, so they were sent again).
    expect(held.size).toBeGreaterThan(0);
    expect(leadsReceived).toBe(leadRows.length + receivedTwice.reduce((sum, l) => sum + l.n - 1, 0));

    // Fair shares across companies (bench:drain's measure), in the windows where every company had a backlog.
    const sends = (
      await query<{ company: string; started_at: string }>(
        "select s.company_id as company, a.started_at from submission_attempts a join submissions s on s.id = a.submission_id",
      )
    ).map((r) => ({ company: r.company, at: Date.parse(r.started_at) }));
    const companyIds = config.companies.map((c) => `co_${c.id}`);
    const demand = companyIds.map(() => Math.min(2 * PER_CREDENTIAL, PER_COMPANY));
    const fairness = windowedFairness({
      sends,
      companies: companyIds,
      shares: maxMinShares(demand, EGRESS),
      from: burstAcceptedAt,
      // The dead worker's unanswered sends hold their slots until their bound: the stall and its edges are idle.
      minSends: EGRESS / 2,
      windowMs: W,
    });

    // Each machine's folder holds its copy of the config file and nothing else: no SQLite file, no key file. The same
    // look finds the sandbox's database (positive control).
    for (const dir of [...apiDirs, ...workerDirs, migrateDir]) {
      expect(sqliteFiles(dir), dir).toEqual([]);
      expect(readdirSync(dir), dir).toEqual(dir === migrateDir ? [] : ["config.json"]);
    }
    expect(sqliteFiles(sandboxDir)).toContain("sandbox.db");

    // Positive control of the referee: a burst past one key's limit is refused and counted.
    const key = upstream.companies[0]?.keys[0] ?? "";
    await Promise.all(
      Array.from({ length: PER_CREDENTIAL + 5 }, (_, i) =>
        fetch(`${upstream.url}/api/inbound/leads`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": key },
          body: JSON.stringify(lead(`control${i}`)),
        }),
      ),
    );
    expect((await stats()).traffic.totals.limited).toBeGreaterThan(0);

    mark("checked");
    console.log(
      `several machines: ${total} submissions, ${resent.length} sent twice (${held.size} held by the dead worker), ` +
        `fairness mean ${fairness.mean.toFixed(4)} min ${fairness.min.toFixed(4)} over ${fairness.windows} windows ` +
        `(${fairness.idleWindows} idle: ${fairness.indices.map((i) => i.toFixed(2)).join(" ")}); phases (ms from start): ${JSON.stringify(phase)}`,
    );
    expect(fairness.windows).toBeGreaterThanOrEqual(3);
    expect(fairness.mean).toBeGreaterThanOrEqual(0.95);
  }, 300_000);
});

/** When a worker last took over dispatching, or -1 if it did not or stepped down since. */
function lastTakeover(worker: Machine): number {
  const took = worker.lastSeen((l) => l.includes("forwarding dispatcher: took over"));
  const left = worker.lastSeen((l) => l.includes("forwarding dispatcher: stepped down"));
  return took > left ? took : -1;
}
