/**
 * `npx tsx bench/tracing-cost.ts [micro|server]`: what tracing costs per intake request, in CPU (docs/tracing.md, "Cost").
 *
 * `micro` (the default): the real tracing (`startTracing`, OTLP/HTTP to a receiver in another process) makes the spans
 * one intake request makes, as `src/gateway/intake/` makes them (the request's span with its attributes, its mapping
 * and its commit as children, the row's `traceparent`), `TRACE_REQUESTS` (12,000) requests a run paced at
 * `TRACE_RATE` (4,000) a second, 32 a turn of the event loop, so the batch processor keeps up (nothing dropped) and its
 * timer and exports run between turns as on a server. It prints this process's CPU per request (process.cpuUsage: the
 * thread, the GC's threads and the export included), less the same loop untraced. `TRACE_PROTOCOL` (http/protobuf)
 * picks the exporter, `TRACE_ROUNDS` (5) the runs, `TRACE_BALLAST_MB` (0) a live heap for the GC to mark; the medians'
 * difference is the figure, and the minima's beside it (a noisy machine only ever adds).
 *
 * `server`: bench/intake-server.ts's gateway untraced and traced (always_on, OTLP/HTTP protobuf to a receiver here),
 * each loaded for `BENCH_SECONDS` (6) at 32 connections in turn (at `BENCH_RATE` requests/s when set, else closed-loop),
 * `BENCH_ROUNDS` (3) times; it prints each run's server
 * CPU per request (its process tree, as bench:intake's `measured`) and the medians' difference.
 *
 * The machine is shared: run it with `nice -n 5` and compare medians of runs made one after the other.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { SpanKind } from "@opentelemetry/api";
import type { TracingConfig } from "../src/config.js";
import { childSpan, NO_TRACING, startTracing, type Tracing } from "../src/gateway/tracing/index.js";
import { createLogger } from "../src/log.js";
import { startChild } from "./lib/child.js";
import { samplePayload } from "./lib/leads.js";
import { load } from "./lib/load.js";
import { median, processTreeCpuMs } from "./lib/stats.js";

/** An OTLP/HTTP receiver in its own process (its CPU is not this one's): 200 to every export, a count on exit. */
async function startReceiver() {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `const seen = { exports: 0, bytes: 0 };
       const server = require("node:http").createServer((req, res) => {
         req.on("data", (c) => { seen.bytes += c.length; });
         req.on("end", () => { seen.exports++; res.writeHead(200).end(); });
       });
       server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));
       process.on("SIGTERM", () => { console.error(JSON.stringify(seen)); process.exit(0); });
       process.stdin.on("end", () => process.exit(0)).resume();`,
    ],
    // Its standard input is this process's pipe: it ends with this process, whatever way this one ends.
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve) =>
    child.stdout?.once("data", (line: Buffer) => resolve((JSON.parse(line.toString()) as { port: number }).port)),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    stop: () => new Promise<void>((resolve) => child.once("exit", () => resolve()).kill("SIGTERM")),
  };
}

const PATH = "/api/inbound/leads";
const KEY_PREFIX = "pgw_live_ab12c";
const VERSION_ID = "pv_01JDKQ3M6ZKXW8Y7F2T9R4B5NA";

/** One intake request's tracing, as answer-intake.ts and accept-submission.ts make it. */
function oneRequest(tracing: Tracing, n: number): string | null {
  const span = tracing.start(`POST ${PATH}`, {
    parent: undefined,
    kind: SpanKind.SERVER,
    attributes: { "http.request.method": "POST", "http.route": PATH },
  });
  const onKey = (_prefix: string) => undefined;
  const request = {
    kind: "lead",
    onKey: (prefix: string) => {
      span.setAttribute("gateway.vendor_key.prefix", prefix);
      onKey(prefix);
    },
  };
  request.onKey(KEY_PREFIX);
  const mapping = childSpan(tracing, "map payload", tracing.enabled ? span : undefined);
  mapping.setAttribute("gateway.profile_version.id", VERSION_ID);
  mapping.end();
  const traceParent = tracing.enabled ? tracing.traceparent(span) : null;
  const commit = childSpan(tracing, "commit submission", tracing.enabled ? span : undefined);
  commit.end();
  span.setAttribute("http.response.status_code", 202);
  span.setAttribute("gateway.submission.id", `sub_${n}`);
  span.end();
  return traceParent;
}

async function run(tracing: Tracing, requests: number): Promise<number> {
  // Paced at TRACE_RATE requests/s (a gateway's rate, so the batch processor keeps up and drops nothing), 32 a turn.
  const rate = Number(process.env.TRACE_RATE ?? 4_000);
  const started = performance.now();
  let sink = 0;
  const before = process.cpuUsage();
  for (let n = 0; n < requests; n++) {
    const tp = oneRequest(tracing, n);
    if (tp) sink += tp.length;
    if (n % 32 === 31) {
      const due = started + ((n + 1) * 1000) / rate;
      await new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    }
  }
  await tracing.forceFlush();
  const used = process.cpuUsage(before);
  if (sink < 0) console.log(sink);
  return (used.user + used.system) / requests;
}

/** TRACE_BALLAST_MB: that much live heap (small objects, as a gateway's caches and modules), which a major GC marks. */
const ballast: unknown[] = [];

async function micro() {
  for (let mb = 0; mb < Number(process.env.TRACE_BALLAST_MB ?? 0); mb++) {
    ballast.push(Array.from({ length: 10_000 }, (_, i) => ({ i, name: `entry ${i}`, next: null })));
  }
  const requests = Number(process.env.TRACE_REQUESTS ?? 12_000);
  const rounds = Number(process.env.TRACE_ROUNDS ?? 5);
  const receiver = await startReceiver();
  const config: TracingConfig = {
    url: `${receiver.url}/v1/traces`,
    protocol: (process.env.TRACE_PROTOCOL as TracingConfig["protocol"]) ?? "http/protobuf",
    headers: {},
    timeoutMs: 10_000,
    serviceName: "partner-gateway",
    resourceAttributes: {},
    sampler: { name: "always_on", ratio: 1 },
  };
  const tracing = await startTracing(config, createLogger({ level: "silent" }));
  await run(tracing, requests);
  await run(NO_TRACING, requests);
  const on: number[] = [];
  const off: number[] = [];
  for (let round = 0; round < rounds; round++) {
    off.push(await run(NO_TRACING, requests));
    on.push(await run(tracing, requests));
    console.log(
      `round ${round + 1}: traced ${on.at(-1)?.toFixed(2)} µs/req, untraced ${off.at(-1)?.toFixed(2)} µs/req, load ${loadavg()[0]?.toFixed(1)}`,
    );
  }
  await tracing.shutdown();
  await receiver.stop();
  console.log(
    `RESULT micro protocol=${config.protocol} traced_us=${median(on).toFixed(2)} untraced_us=${median(off).toFixed(2)} ` +
      `tracing_us=${(median(on) - median(off)).toFixed(2)} min_tracing_us=${(Math.min(...on) - Math.min(...off)).toFixed(2)}`,
  );
}

async function server() {
  const seconds = Number(process.env.BENCH_SECONDS ?? 6);
  // BENCH_RATE: an open-loop rate both servers keep up with, so each commits as many rows a turn and CPU per request
  // compares like for like (closed-loop, the slower server batches less and pays more per request for it).
  const rate = Number(process.env.BENCH_RATE ?? 0);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const profile = "profiles/homequote-marketplace";
  const body = JSON.stringify(samplePayload(profile));
  const receiver = await startReceiver();
  const args = ["gateway", profile, "profiles/_attacks/runaway-retry-loop"];
  type Gw = Awaited<ReturnType<typeof startChild<{ url: string; keys: { normal: string } }>>>;
  // BENCH_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) go to both servers' Node.
  const nodeOptions = process.env.BENCH_NODE_OPTIONS?.split(" ").filter(Boolean) ?? [];
  const plain: Gw = await startChild("bench/intake-server.ts", args, nodeOptions);
  const traced: Gw = await startChild("bench/intake-server.ts", args, nodeOptions, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    OTEL_TRACES_SAMPLER: "always_on",
  });
  // BENCH_GC_DIR: where bench/lib/gc-preload.mjs, given in BENCH_NODE_OPTIONS (`--import bench/lib/gc-preload.mjs`),
  // writes each server's GC pauses so far; each run then prints its server's GC pause per request too (a file read
  // while it is rewritten reads as 0: a negative figure is such a run).
  const gcMs = (gw: Gw) => {
    try {
      return Number(readFileSync(join(process.env.BENCH_GC_DIR ?? "", `gc-${gw.child.pid}`), "utf8").split(" ")[0]);
    } catch {
      return 0;
    }
  };
  const measured = async (gw: Gw, s: number) => {
    const before = processTreeCpuMs(gw.child.pid ?? 0);
    const gcBefore = gcMs(gw);
    const result = await load({
      url: `${gw.info.url}${PATH}`,
      body,
      headers: { "x-api-key": gw.info.keys.normal },
      seconds: s,
      connections: 32,
      ...(rate ? { rate } : {}),
    });
    const cpu = ((processTreeCpuMs(gw.child.pid ?? 0) - before) * 1000) / Math.max(1, result.rps * s);
    const gc = ((gcMs(gw) - gcBefore) * 1000) / Math.max(1, result.rps * s);
    return { rps: result.rps, cpu, gc, non2xx: result.non2xx };
  };
  try {
    await measured(plain, 4);
    await measured(traced, 4);
    const off: number[] = [];
    const on: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const a = await measured(plain, seconds);
      off.push(a.cpu);
      const b = await measured(traced, seconds);
      on.push(b.cpu);
      console.log(
        `round ${round}: untraced ${a.rps.toFixed(0)} req/s ${a.cpu.toFixed(1)} µs CPU/req, GC ${a.gc.toFixed(1)} (non-2xx ${a.non2xx}); ` +
          `traced ${b.rps.toFixed(0)} req/s ${b.cpu.toFixed(1)} µs CPU/req, GC ${b.gc.toFixed(1)} (non-2xx ${b.non2xx}); load ${loadavg()[0]?.toFixed(1)}`,
      );
    }
    console.log(
      `RESULT server untraced_us=${median(off).toFixed(1)} traced_us=${median(on).toFixed(1)} ` +
        `tracing_us=${(median(on) - median(off)).toFixed(1)}`,
    );
  } finally {
    await plain.stop();
    await traced.stop();
    await receiver.stop();
  }
}

await (process.argv[2] === "server" ? server() : micro());
