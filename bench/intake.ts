/**
 * `npm run bench:intake`: intake throughput against a bare echo route in the same run, then the p99 of normal keys
 * with and without a key whose profile runs away on its payloads.
 *
 * Scenario 1 (throughput): closed-loop load on POST /api/inbound/leads with a realistic native payload and profile
 * (auth + map + validate + commit to a WAL file database), and the same load on a Hono route that parses and echoes
 * the JSON; and, as a second reference, a route that only parses and commits the raw body (the floor of any intake that
 * commits before it answers). Scenario 2 (isolation): an open-loop load at half the measured intake rate, alone and alongside 20 req/s
 * from a key whose profile passes its samples but loops on real input. At saturation p99 measures only the queue the
 * load generator builds, so the isolation scenario holds the rate fixed.
 *
 * The machine is shared (two cores): a burst from another process lands in one run and not the next. So both servers
 * run side by side and each scenario alternates its two runs BENCH_ROUNDS times (3); the RESULT line compares medians.
 * Each run also reports the server's CPU time per request (its process and its evaluator processes), which does not
 * depend on how much of the machine others take, and the load average.
 *
 * The hook case runs in the same rounds: the same payloads posted to a hook connection's URL (the connection maps with
 * the same profile), each a new lead signed with HMAC-SHA256 over its raw body as Meta signs; `hook_ratio` is its
 * rate over the x-api-key path's given a new lead each request too (the `new-lead` runs of the same rounds), so that
 * the two differ by the hook's own work only (docs/connections.md).
 *
 * A vendor's real leads are of different people: `real_lead_ratio` is the x-api-key path's rate over echo's given a
 * lead of a new person each request (an e-mail and a mobile number of its own, bench/lib/leads.ts `newPeople`). Their
 * person-search entries (D-319) land anywhere in their indexes, where the `ratio` run's (the same lead each time) and
 * the `new-lead` run's (e-mails numbered in order) append (docs/performance.md, 2026-11-28 evening).
 *
 * Tracing (docs/tracing.md): on the SQLite store a second gateway traces every request (OTEL_TRACES_SAMPLER=always_on),
 * exporting over OTLP/HTTP (protobuf) to a receiver this bench runs; its intake runs in the same rounds, and the SQLite
 * line gives `tracing_off_ratio` (the untraced gateway's rate over echo's) and `tracing_on_ratio` (the traced one's).
 *
 * Both stores run, one after the other, each against the same echo and floor servers measured again in its own
 * rounds: the gateway on a SQLite file, then on PostgreSQL (BENCH_POSTGRES_URL, default the local server; a scratch
 * database made for the run and dropped after it). Each prints a `RESULT store=…` line, PostgreSQL's last;
 * without a reachable PostgreSQL the bench says so and prints the SQLite line only.
 */
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import { startChild } from "./lib/child.js";
import { newLeads, newPeople, samplePayload } from "./lib/leads.js";
import { type LoadResult, load } from "./lib/load.js";
import { postgresUnreachable, scratchDatabase } from "./lib/postgres.js";
import { median, processTreeCpuMs } from "./lib/stats.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PROFILE = process.env.BENCH_PROFILE ?? "profiles/homequote-marketplace";
const RUNAWAY = process.env.BENCH_RUNAWAY_PROFILE ?? "profiles/_attacks/runaway-retry-loop";

interface Run extends LoadResult {
  cpuUsPerRequest: number;
}

/** One load run, with the server's CPU per request over it. */
async function measured(pid: number, run: () => Promise<LoadResult>): Promise<Run> {
  const before = processTreeCpuMs(pid);
  const result = await run();
  const requests = Math.max(1, result.rps * SECONDS);
  return { ...result, cpuUsPerRequest: ((processTreeCpuMs(pid) - before) * 1000) / requests };
}

function fmt(r: Run): string {
  return (
    `${r.rps.toFixed(0).padStart(5)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.cpuUsPerRequest.toFixed(0)} µs CPU/req, ` +
    `non-2xx ${r.non2xx}, errors ${r.errors}, load ${loadavg()[0]?.toFixed(1)}`
  );
}

const normalPayload = JSON.stringify(samplePayload(PROFILE));
const runawayPayload = readFileSync(join(RUNAWAY, "payloads", "runaway.json"), "utf8");

type Store = "sqlite" | "postgres";
type GatewayServer = Awaited<ReturnType<typeof startGatewayServer>>;

const startGatewayServer = (databaseUrl?: string, env: Record<string, string> = {}) =>
  startChild<{
    url: string;
    keys: { normal: string; runaway: string };
    hook: { path: string; secret: string };
  }>("bench/intake-server.ts", ["gateway", PROFILE, RUNAWAY, ...(databaseUrl ? [databaseUrl] : [])], [], env);

/** The OTLP/HTTP receiver the traced gateway exports to: it takes every export (200) and counts them. */
async function startOtlpReceiver() {
  const seen = { exports: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => {
      seen.bytes += chunk.length;
    });
    req.on("end", () => {
      if (req.url === "/v1/traces") seen.exports++;
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const echo = await startChild<{ url: string }>("bench/intake-server.ts", ["echo"]);
const floor = await startChild<{ url: string }>("bench/intake-server.ts", ["floor"]);
const echoPid = echo.child.pid ?? 0;
const floorPid = floor.child.pid ?? 0;
const echoLoad = (seconds: number) =>
  load({ url: `${echo.info.url}/api/inbound/leads`, body: normalPayload, seconds, connections: CONNECTIONS });
const floorLoad = (seconds: number) =>
  load({ url: `${floor.info.url}/api/inbound/leads`, body: normalPayload, seconds, connections: CONNECTIONS });

console.log(`load average at start: ${loadavg()[0]?.toFixed(1)}; ${ROUNDS} rounds of ${SECONDS} s per run`);
await echoLoad(2);
await floorLoad(2);

const postgresMissing = await postgresUnreachable();
const results: string[] = [];
const sqliteGateway = await startGatewayServer();
const otlp = await startOtlpReceiver();
const tracedGateway = await startGatewayServer(undefined, {
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
  OTEL_TRACES_SAMPLER: "always_on",
});
try {
  results.push(await measure("sqlite", sqliteGateway, tracedGateway));
} finally {
  await sqliteGateway.stop();
  await tracedGateway.stop();
  await otlp.close();
}
console.log(`OTLP receiver: ${otlp.seen.exports} exports to /v1/traces, ${(otlp.seen.bytes / 1e6).toFixed(1)} MB`);
if (postgresMissing) {
  console.log(`store=postgres not run: ${postgresMissing}`);
} else {
  const database = await scratchDatabase();
  try {
    const postgresGateway = await startGatewayServer(database.url);
    try {
      results.push(await measure("postgres", postgresGateway));
    } finally {
      await postgresGateway.stop();
    }
  } finally {
    await database.drop();
  }
}
await Promise.all([echo.stop(), floor.stop()]);
// One RESULT line per store, PostgreSQL's last (the last line printed).
for (const line of results) console.log(line);

/**
 * Both scenarios on one store's gateway, each of its rounds alternating with echo's and floor's, and with the traced
 * gateway's intake when there is one; its RESULT line.
 */
async function measure(store: Store, gw: GatewayServer, traced?: GatewayServer): Promise<string> {
  const gwPid = gw.child.pid ?? 0;
  const leads = `${gw.info.url}/api/inbound/leads`;
  const normal = { "x-api-key": gw.info.keys.normal };
  const intakeLoad = (seconds: number, rate?: number, each?: () => { body: string; headers: Record<string, string> }) =>
    load({
      url: leads,
      body: normalPayload,
      headers: normal,
      seconds,
      connections: CONNECTIONS,
      ...(rate ? { rate } : {}),
      ...(each ? { each } : {}),
    });
  // The hook case: the same payload shape through the connection's hook URL, each request a new lead (a vendor's retry
  // of the same payload is stored once) signed with HMAC-SHA256 over its raw body, made by the load generator.
  const hookLead = newLeads(JSON.parse(normalPayload), "lead");
  const hookLoad = (seconds: number) =>
    load({
      url: `${gw.info.url}${gw.info.hook.path}`,
      body: normalPayload,
      seconds,
      connections: CONNECTIONS,
      each: () => {
        const body = hookLead();
        const signature = createHmac("sha256", gw.info.hook.secret).update(body).digest("hex");
        return { body, headers: { "x-hub-signature-256": `sha256=${signature}` } };
      },
    });
  // hook_ratio's baseline: the x-api-key path given what the hook case is given, each request a new lead made by the
  // load generator (its own work per request as the hook case's, but the signature), so the two differ by the hook's
  // work only: the same lead every time costs intake less (one index key, no new JSON made by the client).
  const freshLead = newLeads(JSON.parse(normalPayload), "fresh");
  const freshIntakeLoad = (seconds: number) =>
    intakeLoad(seconds, undefined, () => ({ body: freshLead(), headers: {} }));
  // `real_lead_ratio`: the x-api-key path given leads of different people, as a vendor's real traffic is. Each lead's
  // e-mail and phone then take a page of their own in the person-search indexes (D-319), where the other runs'
  // append.
  const person = newPeople(JSON.parse(normalPayload));
  const peopleIntakeLoad = (seconds: number) => intakeLoad(seconds, undefined, () => ({ body: person(), headers: {} }));
  const tracedLoad = (server: GatewayServer, seconds: number) =>
    load({
      url: `${server.info.url}/api/inbound/leads`,
      body: normalPayload,
      headers: { "x-api-key": server.info.keys.normal },
      seconds,
      connections: CONNECTIONS,
    });
  console.log(`store=${store}`);
  await intakeLoad(2);
  await hookLoad(2);
  // Warmed as long as the untraced gateway (its intake and hook runs): a cold JIT on a loaded machine can push an
  // inline mapping past its time bound and demote the version to the evaluators for a minute (profiles/inline.ts).
  if (traced) await tracedLoad(traced, 4);
  const tracedRuns: Run[] = [];
  const echoRuns: Run[] = [];
  const floorRuns: Run[] = [];
  const intakeRuns: Run[] = [];
  const hookRuns: Run[] = [];
  const freshRuns: Run[] = [];
  const peopleRuns: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    echoRuns.push(await measured(echoPid, () => echoLoad(SECONDS)));
    console.log(`round ${round} echo     ${fmt(echoRuns.at(-1) as Run)}`);
    floorRuns.push(await measured(floorPid, () => floorLoad(SECONDS)));
    console.log(`round ${round} floor    ${fmt(floorRuns.at(-1) as Run)}`);
    intakeRuns.push(await measured(gwPid, () => intakeLoad(SECONDS)));
    console.log(`round ${round} intake   ${fmt(intakeRuns.at(-1) as Run)} (${store})`);
    freshRuns.push(await measured(gwPid, () => freshIntakeLoad(SECONDS)));
    console.log(`round ${round} new-lead ${fmt(freshRuns.at(-1) as Run)} (${store}, x-api-key, a new lead each)`);
    hookRuns.push(await measured(gwPid, () => hookLoad(SECONDS)));
    console.log(`round ${round} hook     ${fmt(hookRuns.at(-1) as Run)} (${store})`);
    // After the hook's run, so that the hook and its baseline run side by side as before this case was added.
    peopleRuns.push(await measured(gwPid, () => peopleIntakeLoad(SECONDS)));
    console.log(`round ${round} people   ${fmt(peopleRuns.at(-1) as Run)} (${store}, x-api-key, a new person each)`);
    if (traced) {
      tracedRuns.push(await measured(traced.child.pid ?? 0, () => tracedLoad(traced, SECONDS)));
      console.log(`round ${round} traced   ${fmt(tracedRuns.at(-1) as Run)} (${store}, every request traced)`);
    }
  }
  const hookRps = median(hookRuns.map((r) => r.rps));
  const hookRatio = hookRps / median(freshRuns.map((r) => r.rps));
  console.log(
    `hook URL (${store}): ${hookRps.toFixed(0)} req/s, ${hookRatio.toFixed(3)} of the x-api-key path's with a new lead each, ` +
      `${median(hookRuns.map((r) => r.cpuUsPerRequest)).toFixed(0)} µs CPU/req`,
  );
  const echoRps = median(echoRuns.map((r) => r.rps));
  const peopleRps = median(peopleRuns.map((r) => r.rps));
  console.log(
    `a new person each (${store}): ${peopleRps.toFixed(0)} req/s, ${(peopleRps / echoRps).toFixed(3)} of echo, ` +
      `${median(peopleRuns.map((r) => r.cpuUsPerRequest)).toFixed(0)} µs CPU/req`,
  );
  const floorRps = median(floorRuns.map((r) => r.rps));
  const floorCpu = median(floorRuns.map((r) => r.cpuUsPerRequest));
  const intakeRps = median(intakeRuns.map((r) => r.rps));
  const intakeP99 = median(intakeRuns.map((r) => r.p99));
  const ratio = intakeRps / echoRps;
  const echoCpu = median(echoRuns.map((r) => r.cpuUsPerRequest));
  const intakeCpu = median(intakeRuns.map((r) => r.cpuUsPerRequest));
  console.log(
    `medians (${store}): echo ${echoRps.toFixed(0)} req/s, intake ${intakeRps.toFixed(0)} req/s, ratio ${ratio.toFixed(3)}; ` +
      `CPU per request: echo ${echoCpu.toFixed(0)} µs, intake ${intakeCpu.toFixed(0)} µs (${(echoCpu / intakeCpu).toFixed(3)} of intake's)`,
  );
  console.log(
    `commit floor (parse + group-committed insert + 202, nothing else): ${floorRps.toFixed(0)} req/s, ` +
      `${(floorRps / echoRps).toFixed(3)} of echo, ${floorCpu.toFixed(0)} µs CPU/req; intake reaches ${(intakeRps / floorRps).toFixed(3)} of it`,
  );

  const rate = Math.max(50, Math.round(intakeRps / 2));
  const aloneRuns: Run[] = [];
  const withRunawayRuns: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    aloneRuns.push(await measured(gwPid, () => intakeLoad(SECONDS, rate)));
    console.log(`round ${round} at ${rate} req/s, alone:        ${fmt(aloneRuns.at(-1) as Run)}`);
    const runawayRun = load({
      url: leads,
      body: runawayPayload,
      headers: { "x-api-key": gw.info.keys.runaway },
      seconds: SECONDS,
      connections: 4,
      rate: 20,
    });
    withRunawayRuns.push(await measured(gwPid, () => intakeLoad(SECONDS, rate)));
    const runaway = await runawayRun;
    console.log(`round ${round} at ${rate} req/s, with runaway: ${fmt(withRunawayRuns.at(-1) as Run)}`);
    console.log(
      `runaway key: ${runaway.rps.toFixed(1)} req/s, non-2xx ${runaway.non2xx} (422 or 503 expected), p99 ${runaway.p99} ms`,
    );
  }
  const aloneP99 = median(aloneRuns.map((r) => r.p99));
  const withRunawayP99 = median(withRunawayRuns.map((r) => r.p99));
  const runawayRatio = withRunawayP99 / Math.max(1, aloneP99);
  console.log(`medians (${store}): p99 alone ${aloneP99} ms, with runaway ${withRunawayP99} ms`);
  const tracingRatios = traced
    ? ` tracing_off_ratio=${ratio.toFixed(3)} tracing_on_ratio=${(median(tracedRuns.map((r) => r.rps)) / echoRps).toFixed(3)}`
    : "";
  if (traced) {
    const tracedRps = median(tracedRuns.map((r) => r.rps));
    console.log(
      `tracing (${store}): on ${tracedRps.toFixed(0)} req/s, ${(tracedRps / intakeRps).toFixed(3)} of off's, ` +
        `${median(tracedRuns.map((r) => r.cpuUsPerRequest)).toFixed(0)} µs CPU/req`,
    );
  }
  return `RESULT store=${store} intake_rps=${intakeRps.toFixed(0)} echo_rps=${echoRps.toFixed(0)} ratio=${ratio.toFixed(3)} p99_ms=${intakeP99} runaway_p99_ratio=${runawayRatio.toFixed(3)} intake_cpu_us=${intakeCpu.toFixed(0)} echo_cpu_us=${echoCpu.toFixed(0)} floor_ratio=${(floorRps / echoRps).toFixed(3)} hook_ratio=${hookRatio.toFixed(3)} real_lead_ratio=${(peopleRps / echoRps).toFixed(3)}${tracingRatios}`;
}
