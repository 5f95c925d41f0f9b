/**
 * `npm run bench:fanout`: webhook fan-out under a steady load, with and without faulty endpoints (docs/webhooks-gateway.md).
 *
 * One lead-source key with 10 subscriptions, each at its own receiver on 127.0.0.1 (served by a child process, so
 * the receivers do not share the gateway's event loop). 2,000 events — forwarded submissions, settled through the
 * hook forwarding calls — are injected at a steady 200 events/s, each delivered to all 10: 20,000 deliveries. Run 1:
 * every receiver answers 200. Run 2, in the same process on a fresh database: one receiver never answers and one
 * answers 500; the other eight are measured. Latency is event-to-delivery: from the injection of the event to its
 * first arrival at a receiver (wall clock, sub-millisecond, both processes on one machine). `lost` counts events
 * missing at a healthy receiver after the drain.
 *
 * The machine is shared, and another process's burst lands in one run and not the other: so the pair is run
 * BENCH_ROUNDS times (3), alternating, and the RESULT line compares the medians of the per-run p99s. Each run also
 * reports the CPU time the gateway's process spent per delivery (not skewed by waiting for a core) and the load
 * average, so a noisy run shows as one.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createGateway } from "../src/gateway/create-gateway.js";
import { createUpstreamCredential } from "../src/gateway/credentials/upstream-credentials.js";
import { createVendorKey } from "../src/gateway/keys/vendor-keys.js";
import { submissionRow } from "../src/gateway/storage/submissions/index.js";
import { createCompany } from "../src/gateway/tenants/create-company.js";
import { onSubmissionSettled } from "../src/gateway/webhooks/index.js";
import { createSubscription } from "../src/gateway/webhooks/subscriptions/create-subscription.js";
import { newId } from "../src/ids.js";
import { createLogger } from "../src/log.js";
import { sqlOf } from "../test/helpers/sqlite-of.js";
import { median } from "./lib/stats.js";

const ENDPOINTS = 10;
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const DRAIN_MS = Number(process.env.BENCH_DRAIN_MS ?? 60_000);
/** Events sent (at the same rate) before the measured ones, so start-up (JIT, worker threads, pools) is not measured. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
/** Healthy and faulty runs, alternating, this many times each; the medians are compared. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

type Behaviour = "healthy" | "silent" | "error";
type ToChild = { cmd: "counts" } | { cmd: "arrivals" } | { cmd: "exit" };
type FromChild =
  | { type: "ready"; urls: string[] }
  | { type: "counts"; counts: number[] }
  | { type: "arrivals"; arrivals: Array<Record<string, number>> };

const wallNow = () => performance.timeOrigin + performance.now();

/** Child: the receivers. Records the first arrival (wall ms) of each submission id per endpoint. */
async function receivers(behaviours: Behaviour[]): Promise<void> {
  const arrivals = behaviours.map(() => new Map<string, number>());
  const held = new Set<ServerResponse>();
  const urls = await Promise.all(
    behaviours.map(
      (behaviour, index) =>
        new Promise<string>((resolve) => {
          const server = createServer((req, res) => {
            const chunks: Buffer[] = [];
            req.on("data", (c: Buffer) => chunks.push(c));
            req.on("end", () => {
              const at = wallNow();
              if (behaviour === "silent") return void held.add(res);
              if (behaviour === "error") return void res.writeHead(500).end();
              const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data: { submissionId: string } };
              const seen = arrivals[index];
              if (seen && !seen.has(body.data.submissionId)) seen.set(body.data.submissionId, at);
              res.writeHead(200).end();
            });
          });
          server.keepAliveTimeout = 30_000;
          server.listen(0, "127.0.0.1", () => {
            resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`);
          });
        }),
    ),
  );
  const send = (message: FromChild) => process.send?.(message);
  process.on("message", (message: ToChild) => {
    if (message.cmd === "counts") send({ type: "counts", counts: arrivals.map((a) => a.size) });
    if (message.cmd === "arrivals") send({ type: "arrivals", arrivals: arrivals.map((a) => Object.fromEntries(a)) });
    if (message.cmd === "exit") process.exit(0);
  });
  send({ type: "ready", urls });
}

function startReceivers(behaviours: Behaviour[]) {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", new URL(import.meta.url).pathname, "receivers", behaviours.join(",")],
    { stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  const next = <T extends FromChild["type"]>(type: T) =>
    new Promise<Extract<FromChild, { type: T }>>((resolve) => {
      const on = (message: FromChild) => {
        if (message.type !== type) return;
        child.off("message", on);
        resolve(message as Extract<FromChild, { type: T }>);
      };
      child.on("message", on);
    });
  const ask = <T extends FromChild["type"]>(cmd: ToChild, type: T) => {
    const answer = next(type);
    child.send(cmd);
    return answer;
  };
  return {
    ready: next("ready"),
    counts: () => ask({ cmd: "counts" }, "counts"),
    arrivals: () => ask({ cmd: "arrivals" }, "arrivals"),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.send({ cmd: "exit" });
      }),
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

interface RunResult {
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
  lost: number;
}

async function run(label: string, behaviours: Behaviour[]): Promise<RunResult> {
  const endpoints = startReceivers(behaviours);
  const { urls } = await endpoints.ready;
  const dir = mkdtempSync(join(tmpdir(), "bench-fanout-"));
  const gateway = await createGateway({
    databasePath: join(dir, "gateway.db"),
    log: createLogger({ level: "warn" }),
    masterKey: randomBytes(32).toString("hex"),
    // The endpoints are local servers, as on a developer's machine (the gateway on loopback).
    settings: { mode: "sandbox", webhookLoopbackPorts: "any" },
    engine: { poolSize: 1 },
  });
  const ctx = gateway.ctx;
  const company = await createCompany({ ctx, input: { name: "Bench" } });
  const credential = await createUpstreamCredential({
    ctx,
    companyId: company.id,
    input: { name: "general", value: `svc_test_bench0000001.${randomBytes(24).toString("base64url")}` },
  });
  const key = await createVendorKey({
    ctx,
    companyId: company.id,
    input: { name: "marketplace", partnerType: "lead_source", scopes: ["leads:write"], credentialId: credential.id },
  });
  for (const url of urls) {
    await createSubscription({
      ctx,
      companyId: company.id,
      input: { vendorKeyId: key.id, url, events: ["submission.forwarded"] },
    });
  }

  // Steady injection: event i at start + i / RATE, each a forwarded lead settled through the forwarding hook.
  const db = sqlOf(gateway);
  const inject = async (count: number, record: Map<string, number> | undefined) => {
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const wait = started + (i * 1000) / RATE - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const now = new Date().toISOString();
      const row = submissionRow({
        id: newId("sub"),
        companyId: company.id,
        vendorKeyId: key.id,
        credentialId: credential.id,
        kind: "lead",
        status: "forwarded",
        payloadDigest: "bench",
        attempts: 1,
        forwardedAt: now,
        upstreamStatus: 201,
        result: { status: "created", leadId: `lead_${i}` },
        createdAt: now,
      });
      await db.insertInto("submissions").values(row).execute();
      record?.set(row.id, wallNow());
      await onSubmissionSettled(ctx, row);
    }
    return (performance.now() - started) / 1000;
  };
  const healthy = behaviours.flatMap((b, i) => (b === "healthy" ? [i] : []));
  const drain = async (total: number) => {
    const drainUntil = performance.now() + DRAIN_MS;
    for (;;) {
      const { counts } = await endpoints.counts();
      if (healthy.every((i) => (counts[i] ?? 0) >= total) || performance.now() > drainUntil) return;
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  await gateway.ctx.engine.ready();
  await inject(WARMUP, undefined);
  await drain(WARMUP);

  const injectedAt = new Map<string, number>();
  const cpuBefore = process.cpuUsage();
  const injectedIn = await inject(EVENTS, injectedAt);
  await drain(WARMUP + EVENTS);
  const cpu = process.cpuUsage(cpuBefore);
  const { arrivals } = await endpoints.arrivals();
  const latencies: number[] = [];
  let lastArrival = 0;
  let lost = 0;
  for (const i of healthy) {
    const seen = arrivals[i] ?? {};
    for (const [id, at] of injectedAt) {
      const arrived = seen[id];
      if (arrived === undefined) lost++;
      else {
        latencies.push(arrived - at);
        lastArrival = Math.max(lastArrival, arrived);
      }
    }
  }
  latencies.sort((a, b) => a - b);
  const firstInjection = Math.min(...injectedAt.values());
  const seconds = (lastArrival - firstInjection) / 1000;
  const result: RunResult = {
    deliveriesPerSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    lost,
  };
  console.log(
    `${label.padEnd(28)} injected ${EVENTS} events in ${injectedIn.toFixed(2)} s; ${latencies.length} deliveries to ` +
      `${healthy.length} healthy receivers in ${seconds.toFixed(2)} s (${result.deliveriesPerSecond.toFixed(0)} deliveries/s); ` +
      `event-to-delivery p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ` +
      `max ${(latencies.at(-1) ?? Number.NaN).toFixed(1)} ms; lost ${lost}; ` +
      `gateway CPU ${((cpu.user + cpu.system) / EVENTS / ENDPOINTS).toFixed(0)} µs per delivery, load ${loadavg()[0]?.toFixed(1)}`,
  );
  await gateway.close();
  await endpoints.stop();
  rmSync(dir, { recursive: true, force: true });
  return result;
}

if (process.argv[2] === "receivers") {
  await receivers((process.argv[3] ?? "").split(",") as Behaviour[]);
} else {
  console.log(
    `fan-out: ${EVENTS} events at ${RATE}/s (after ${WARMUP} warm-up events), each to ${ENDPOINTS} endpoints on ` +
      `127.0.0.1; database in ${tmpdir()}`,
  );
  const healthyRuns: RunResult[] = [];
  const faultyRuns: RunResult[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const suffix = ROUNDS > 1 ? ` (${round}/${ROUNDS})` : "";
    healthyRuns.push(
      await run(
        `run 1: all healthy${suffix}`,
        Array.from({ length: ENDPOINTS }, () => "healthy" as const),
      ),
    );
    faultyRuns.push(
      await run(`run 2: one silent, one 500${suffix}`, [
        ...Array.from({ length: ENDPOINTS - 2 }, () => "healthy" as const),
        "silent",
        "error",
      ]),
    );
  }
  const healthyP99 = median(healthyRuns.map((r) => r.p99));
  const faultyP99 = median(faultyRuns.map((r) => r.p99));
  const lost = [...healthyRuns, ...faultyRuns].reduce((n, r) => n + r.lost, 0);
  if (ROUNDS > 1) {
    const ratios = healthyRuns.map((h, i) => ((faultyRuns[i]?.p99 ?? Number.NaN) / h.p99).toFixed(2));
    console.log(
      `medians of ${ROUNDS} rounds: healthy p99 ${healthyP99.toFixed(1)} ms, faulty p99 ${faultyP99.toFixed(1)} ms; ` +
        `per-round faulty/healthy p99: ${ratios.join(", ")}`,
    );
  }
  console.log(
    `RESULT deliveries_per_s=${median(healthyRuns.map((r) => r.deliveriesPerSecond)).toFixed(0)} ` +
      `healthy_p99_ms=${healthyP99.toFixed(1)} faulty_vs_healthy_p99=${(faultyP99 / healthyP99).toFixed(2)} lost=${lost}`,
  );
  process.exit(0);
}
