/**
 * `npm run bench:abuse`: bounded input (docs/decisions.md, "Bounded input"), measured on the real gateway in a child
 * process (bench/abuse-server.ts, with --expose-gc).
 *
 * 1. Sign-in memory: BENCH_SIGNINS (2,000) unauthenticated sign-ins with unique e-mails of the largest size accepted
 *    (254 characters) and passwords of the largest (1,024), each from its own client address through the trusted
 *    proxy's `x-forwarded-for`; the server's resident set size after a full GC, before (after a warm-up of the same
 *    requests) and after. Target: at most 20 MB of growth.
 * 2. Fuzz: BENCH_FUZZ (50,000) hostile requests over intake and the owner API (test/helpers/hostile-requests.ts, the
 *    generators of the property tests, with larger strings and deeper nesting), counting those that carried accepted
 *    credentials and were not answered 401 (they reached parsing and validation), and every 500 (or a 5xx that is not a
 *    503 with retry-after). Target: 0, with the server still up.
 * 3. Isolation: a third company's intake p99 at a fixed rate (half of what it takes when alone), alone and while one
 *    replays its 500 stored leads through a draft continuously (two replays at a time, its quota lifted so the lane
 *    itself is what is measured); BENCH_ROUNDS (3) alternations of BENCH_SECONDS (5), medians. Target: ratio ≤ 1.5.
 */
import { loadavg } from "node:os";
import fc from "fast-check";
import {
  acceptableAnswer,
  type FuzzTarget,
  type HostileRequest,
  intakeRequests,
  ownerRequests,
  send,
} from "../test/helpers/hostile-requests.js";
import { startChild } from "./lib/child.js";
import { load } from "./lib/load.js";
import { median, processTreeCpuMs } from "./lib/stats.js";

const SIGNINS = Number(process.env.BENCH_SIGNINS ?? 2_000);
const WARM_UP = Math.min(400, SIGNINS);
const FUZZ = Number(process.env.BENCH_FUZZ ?? 50_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 16;

interface ServerInfo {
  url: string;
  control: string;
  intake: { mappedKey: string; plainKey: string; token: string; ids: string[] };
  replayer: { token: string; keyId: string };
  /** A key of a third company, whose latency is measured: no fuzzed payload ever made its version suspect. */
  steadyKey: string;
  expression: string;
  payload: unknown;
}

const server = await startChild<ServerInfo>("bench/abuse-server.ts", [], ["--expose-gc"]);
const { url, control } = server.info;
console.log(`load average at start: ${loadavg()[0]?.toFixed(1)}`);

/** Runs `count` tasks, `concurrency` at a time. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await task(i);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** The server's resident set size and V8 heap in use after a full GC, in MB. */
async function memoryMb(): Promise<{ rss: number; heap: number }> {
  const { rss, heapUsed } = (await (await fetch(`${control}/rss`)).json()) as { rss: number; heapUsed: number };
  return { rss: rss / 1024 / 1024, heap: heapUsed / 1024 / 1024 };
}

// 1. Sign-in memory.
const EMAIL_DOMAIN = "@example.test";
const PASSWORD = "p".repeat(1024);
const statuses = new Map<number, number>();
const signIn = async (i: number) => {
  const local = `${i}-`.padEnd(254 - EMAIL_DOMAIN.length, "x");
  const res = await fetch(`${url}/owner/v1/sessions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      // 198.18.0.0/15 (benchmarking addresses): only ever a header value here, never a destination.
      "x-forwarded-for": `198.18.${(i >> 8) & 255}.${i & 255}, 198.19.${(i >> 8) & 255}.${i & 255}`,
    },
    body: JSON.stringify({ email: `${local}${EMAIL_DOMAIN}`, password: PASSWORD }),
  });
  await res.arrayBuffer();
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
};
await pool(WARM_UP, 8, (i) => signIn(100_000 + i)); // warm-up: the code, the hash's memory, the allocator's arenas
const before = await memoryMb();
let started = performance.now();
await pool(SIGNINS, 8, signIn);
const after = await memoryMb();
const signinGrowth = after.rss - before.rss;
const signed = (mb: number) => `${mb >= 0 ? "+" : ""}${mb.toFixed(1)} MB`;
console.log(
  `sign-ins: ${SIGNINS} in ${((performance.now() - started) / 1000).toFixed(1)} s, answers ${JSON.stringify(Object.fromEntries(statuses))}; ` +
    `after GC: RSS ${before.rss.toFixed(1)} → ${after.rss.toFixed(1)} MB (${signed(signinGrowth)}), ` +
    `V8 heap ${before.heap.toFixed(1)} → ${after.heap.toFixed(1)} MB (${signed(after.heap - before.heap)})`,
);

// 2. Fuzz.
const document = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, object> };
const spared = new Set(["delete /owner/v1/sessions/current", "delete /owner/v1/tokens/{tokenId}"]);
const target: FuzzTarget = {
  mappedKey: server.info.intake.mappedKey,
  plainKey: server.info.intake.plainKey,
  ownerToken: server.info.intake.token,
  ownerRoutes: Object.entries(document.paths)
    .filter(([path]) => path.startsWith("/owner/v1/"))
    .flatMap(([path, operations]) => Object.keys(operations).map((method) => ({ method, path })))
    .filter((r) => !spared.has(`${r.method} ${r.path}`) && !/\/keys\/\{keyId\}\/(revoke|rotate)$/.test(r.path)),
  ids: server.info.intake.ids,
  expression: server.info.expression,
};
const SIZES = { maxString: 300_000, maxDepth: 20_000 };
const arbitrary = fc.oneof(intakeRequests(target, SIZES), ownerRequests(target, SIZES));
let sent = 0;
let reached = 0;
let failures = 0;
let transportErrors = 0;
const byStatus = new Map<number, number>();
const timings = new Map<string, { count: number; ms: number }>();
const examples: string[] = [];
started = performance.now();
const fuzzCpuFrom = processTreeCpuMs(server.child.pid ?? 0);
let generationMs = 0;
const BATCH = 1_000;
for (let batch = 0; batch * BATCH < FUZZ; batch++) {
  const generating = performance.now();
  const requests: HostileRequest[] = fc.sample(arbitrary, {
    numRuns: Math.min(BATCH, FUZZ - batch * BATCH),
    seed: 15_000 + batch,
  });
  generationMs += performance.now() - generating;
  await pool(requests.length, CONCURRENCY, async (i) => {
    const request = requests[i] as HostileRequest;
    sent++;
    const from = performance.now();
    try {
      const answer = await send(url, request);
      const route = `${request.method} ${request.path.replace(/\?.*$/, "").replace(/\/(prf|pv|key|sub|cred|tok|whs)_[^/]+|\/[^/]*%[^/]*/g, "/:id")}`;
      const timing = timings.get(route) ?? { count: 0, ms: 0 };
      timing.count++;
      timing.ms += performance.now() - from;
      timings.set(route, timing);
      byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
      if (request.authenticated && answer.status !== 401) reached++;
      if (!acceptableAnswer(answer.status, answer.retryAfter)) {
        failures++;
        if (examples.length < 5) examples.push(`${answer.status} ${request.method} ${request.path}`);
      }
    } catch (error) {
      transportErrors++;
      const cause = error instanceof Error && error.cause ? ` (${String(error.cause)})` : "";
      if (examples.length < 5)
        examples.push(`transport error ${String(error)}${cause} on ${request.method} ${request.path}`);
    }
  });
}
const alive = (await fetch(`${url}/health/live`)).status === 200;
const { answered } = (await (await fetch(`${control}/rss`)).json()) as {
  answered: { failures: number; unavailable: number; lastFailure: string };
};
// Every 500 the server wrote, whether or not the client was there to read it (a transport error is a connection the
// server cut: a body past its limit still arriving after the 413).
const fuzz500 = Math.max(failures, answered.failures);
console.log(
  `fuzz: ${sent} requests in ${((performance.now() - started) / 1000).toFixed(1)} s, ${reached} past authentication, ` +
    `${failures} answered 500 (${answered.failures} in the server's log, ${answered.unavailable} 503s), ` +
    `${transportErrors} transport errors (twice in a row); server ${alive ? "up" : "DOWN"}; ` +
    `answers ${JSON.stringify(Object.fromEntries([...byStatus].sort(([a], [b]) => a - b)))}`,
);
for (const example of examples) console.log(`  e.g. ${example}`);
if (answered.lastFailure) console.log(`  the server's last 5xx line: ${answered.lastFailure}`);
console.log(
  `  generating them took ${(generationMs / 1000).toFixed(1)} s; the server's CPU ${((processTreeCpuMs(server.child.pid ?? 0) - fuzzCpuFrom) / sent).toFixed(2)} ms per request`,
);
const slowest = [...timings].sort(([, a], [, b]) => b.ms - a.ms).slice(0, 8);
console.log(
  `  slowest routes: ${slowest.map(([route, t]) => `${route} ${t.count}× ${(t.ms / t.count).toFixed(0)} ms`).join("; ")}`,
);

// 3. Intake latency while another company replays.
const leads = `${url}/api/inbound/leads`;
const body = JSON.stringify(server.info.payload);
const intakeLoad = (rate?: number) =>
  load({
    url: leads,
    body,
    headers: { "x-api-key": server.info.steadyKey },
    seconds: SECONDS,
    connections: 32,
    ...(rate ? { rate } : {}),
  });
await intakeLoad();
const capacity = await intakeLoad();
const rate = Math.max(50, Math.round(capacity.rps / 2));
console.log(`intake alone, closed loop: ${capacity.rps.toFixed(0)} req/s; measuring at ${rate} req/s`);

const draft = server.info.expression.replace("{", '{ "source": "replay",');
let replaying = false;
let replayed = 0;
let replaySeconds = 0;
let replayRefusals = 0;
const replayLoop = async () => {
  while (replaying) {
    const res = await fetch(`${url}/owner/v1/profiles/replay`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.info.replayer.token}`, "content-type": "application/json" },
      body: JSON.stringify({ keyId: server.info.replayer.keyId, kind: "lead", expression: draft, limit: 500 }),
    });
    if (res.status === 200) replayed += ((await res.json()) as { replayed: number }).replayed;
    else {
      replayRefusals++;
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 100));
    }
  }
};

const alone: number[] = [];
const withReplay: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const a = await intakeLoad(rate);
  alone.push(a.p99);
  console.log(
    `round ${round} alone:       ${a.rps.toFixed(0)} req/s, p50 ${a.p50} ms, p99 ${a.p99} ms, ${JSON.stringify(a.statuses)}`,
  );
  replaying = true;
  const loops = [replayLoop(), replayLoop()];
  const from = performance.now();
  const countedFrom = replayed;
  const b = await intakeLoad(rate);
  replaying = false;
  await Promise.all(loops);
  const seconds = (performance.now() - from) / 1000;
  replaySeconds += seconds;
  withReplay.push(b.p99);
  console.log(
    `round ${round} with replay: ${b.rps.toFixed(0)} req/s, p50 ${b.p50} ms, p99 ${b.p99} ms, ${JSON.stringify(b.statuses)}; ` +
      `replayed ${((replayed - countedFrom) / seconds).toFixed(0)} payloads/s`,
  );
}
const engine = (await (await fetch(`${control}/rss`)).json()) as { engine: unknown };
console.log(`evaluators: ${JSON.stringify(engine.engine)}; replay refusals ${replayRefusals}`);
await server.stop();

const p99Alone = median(alone);
const p99WithReplay = median(withReplay);
const ratio = p99WithReplay / Math.max(1, p99Alone);
console.log(`medians: intake p99 alone ${p99Alone} ms, with replay ${p99WithReplay} ms`);
console.log(
  `RESULT signin_rss_growth_mb=${signinGrowth.toFixed(1)} fuzz_requests=${sent} fuzz_reached_validation=${reached} ` +
    `fuzz_500=${alive ? fuzz500 : "down"} replay_payloads_per_s=${(replayed / replaySeconds).toFixed(0)} ` +
    `intake_p99_replay_ratio=${ratio.toFixed(3)}`,
);
process.exit(0);
