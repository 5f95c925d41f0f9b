/**
 * `npm run bench:drain`: forwarding a burst against the sandbox with exact per-second limits (10/s per credential,
 * 50/s per company, 100/s egress; the big company has 100/s "by arrangement", §8), sandbox in its own process.
 *
 * Load: 5,000 submissions over 24 credentials of 5 companies, skewed: company A (16 credentials) has 80 %, B–E
 * (2 credentials each) 250 each; a single submission of an idle sixth company is injected mid-burst. With A allowed
 * 100/s the egress is the bottleneck, so max-min fairness (20/s each while all are backlogged) and full utilisation
 * can both hold.
 *
 * Both drivers run, one after the other, each on a fresh sandbox and database: the embedded driver (forwarding in
 * the bench's own process), then the BullMQ driver (REDIS_URL, default the local Redis, under a prefix of its own):
 * the bench process is the API (intake commits and publishes) and two `worker` processes forward. Without a
 * reachable Redis the bench says so and runs the embedded driver only.
 *
 * Figures: utilisation = T_min / (last upstream answer − first send), where T_min = max over limiter nodes of
 * (submissions through it) × W/N; fairness = Jain's index of each company's throughput over its max-min fair share,
 * in 1 s windows where every company is backlogged (first excluded), averaged; small_first_wait_ms = the idle
 * company's commit → send; upstream_429 as counted by the sandbox.
 *
 * After each driver's drain, the burst case (bench/burst.ts) runs on the same driver: thirty sync requests on an idle
 * credential of 60 a minute, with the others idle and with the egress saturated.
 *
 * All of that runs on a SQLite file (`store=sqlite`). Then each driver's drain runs again with the gateway (and the
 * BullMQ driver's two worker processes) on PostgreSQL (`store=postgres`; BENCH_POSTGRES_URL, default the local server;
 * a scratch database made for each run and dropped after it), first with the 1 s windows, then with windows of 10 s
 * (`window_s=10`): the same limits per window, the same companies and backlog shape (BENCH_LONG_SUBMISSIONS, 800:
 * eight windows of the egress), utilisation over the windows after the first — what is left of the fixed per-window
 * costs when the window comes closer to the platform's minute. Without a reachable PostgreSQL (or, for BullMQ,
 * Redis) the bench says so and skips those. Each case prints a `RESULT` line naming its driver, store and window;
 * the last line printed is the last PostgreSQL case's (or, without it, the last SQLite case's).
 * `BENCH_STORES=postgres` (or `sqlite`), `BENCH_DRIVERS=embedded` (or `bullmq`) and `BENCH_WINDOWS=10` (or `1`) run
 * some cases only, to repeat one figure.
 */
import { burstCase } from "./burst.js";
import { maxMinShares, windowedFairness } from "./lib/fairness.js";
import { type Driver, poll, startBenchRig } from "./lib/forwarding-rig.js";
import { postgresUnreachable, scratchDatabase } from "./lib/postgres.js";
import { redisReachable } from "./lib/redis.js";

const PER_CREDENTIAL = 10;
const PER_COMPANY = 50;
const BIG_COMPANY = 100;
const EGRESS = 100;
const TOTAL = Number(process.env.BENCH_SUBMISSIONS ?? 5_000);
/** The 10 s windows' case: eight windows of the egress, the first excluded from its utilisation. */
const LONG_TOTAL = Number(process.env.BENCH_LONG_SUBMISSIONS ?? 800);
const layout = [16, 2, 2, 2, 2, 1, 2]; // credentials per company: A–E burst, F is idle, the last warms up
const share = [0.8, 0.05, 0.05, 0.05, 0.05];

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const WORKERS = 2;

const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",");
const WINDOWS_S = (process.env.BENCH_WINDOWS ?? "1,10").split(",").map(Number);

const drivers = (process.env.BENCH_DRIVERS ?? "embedded,bullmq").split(",") as Driver[];
const redis = await redisReachable(REDIS_URL);
if (!redis && drivers.includes("bullmq")) {
  console.log(`bullmq driver not run: Redis is unreachable at ${REDIS_URL} (set REDIS_URL)`);
  drivers.splice(drivers.indexOf("bullmq"), 1);
}
if (STORES.includes("sqlite") && WINDOWS_S.includes(1)) {
  for (const driver of drivers) {
    await drain(driver, { windowMs: 1_000, total: TOTAL });
    for (const load of ["idle", "saturated"] as const)
      await burstCase({ driver, load, redisUrl: REDIS_URL, workers: WORKERS });
  }
}
const postgresMissing = await postgresUnreachable();
if (!STORES.includes("postgres")) console.log("store=postgres not run: BENCH_STORES leaves it out");
else if (postgresMissing) console.log(`store=postgres not run: ${postgresMissing}`);
else {
  for (const windowS of WINDOWS_S) {
    for (const driver of drivers) {
      const database = await scratchDatabase();
      try {
        await drain(driver, {
          windowMs: windowS * 1_000,
          total: windowS === 1 ? TOTAL : LONG_TOTAL,
          databaseUrl: database.url,
        });
      } finally {
        await database.drop();
      }
    }
  }
}

/**
 * One drain: `windowMs`, the window of every limit (their counts per window as above); `total`, the burst's size;
 * on PostgreSQL with `databaseUrl`.
 */
async function drain(driver: Driver, options: { windowMs: number; total: number; databaseUrl?: string }) {
  const { windowMs: W, total: TOTAL, databaseUrl } = options;
  const store = databaseUrl ? "postgres" : "sqlite";
  const limits = {
    perCredential: { limit: PER_CREDENTIAL, windowMs: W },
    perCompany: { limit: PER_COMPANY, windowMs: W },
    egress: { limit: EGRESS, windowMs: W },
    marginMs: 1,
  };
  const rig = await startBenchRig({
    driver,
    limits,
    upstream: {
      key: { limit: PER_CREDENTIAL, windowMs: W },
      owner: { limit: BIG_COMPANY, windowMs: W },
      ip: { limit: EGRESS, windowMs: W },
    },
    // Company A has 100/s "by arrangement" (the config's figures are per minute).
    companies: layout.map((credentials, i) => ({
      name: `Company ${"ABCDEFG"[i]}`,
      credentials,
      ...(i === 0 ? { perCompany: (BIG_COMPANY * 60_000) / W } : {}),
    })),
    redisUrl: REDIS_URL,
    workers: WORKERS,
    ...(databaseUrl ? { databaseUrl } : {}),
  });
  const { companies } = rig;
  // Per-company limit override is per minute in the config; the bench's window is a second.
  const companyNodeLimit = (i: number) => (i === 0 ? BIG_COMPANY : PER_COMPANY);

  const submit = (companyIndex: number, keyIndex: number) => rig.submit(companyIndex, keyIndex);

  // Warm-up, as benchmarks do: a separate company's submissions warm both processes' code paths and connections; its
  // sends are not measured.
  // With long windows, one window's worth of its two credentials (20): the warm-up takes one window either way.
  const WARMUP = 6;
  const warmups = W > 1_000 ? 2 * PER_CREDENTIAL : 100;
  for (let i = 0; i < warmups; i++) await submit(WARMUP, i);
  await poll(async () => (await rig.settled()) >= warmups);
  const warmupCompanyId = companies[WARMUP]?.id;

  console.log(
    `${driver} (${store}): burst of ${TOTAL} submissions over ${layout.slice(0, 5).reduce((a, b) => a + b)} credentials of 5 companies`,
  );
  // The burst arrives in chunks that yield to the event loop, as requests over HTTP would, interleaved across companies.
  const order: number[] = [];
  for (let c = 0; c < 5; c++) for (let i = 0; i < Math.round(TOTAL * (share[c] ?? 0)); i++) order.push(c);
  order.sort(() => Math.random() - 0.5);
  const accepted = [];
  const perCompany = [0, 0, 0, 0, 0];
  for (let start = 0; start < order.length; start += 50) {
    for (const c of order.slice(start, start + 50)) {
      const index = (perCompany[c] ?? 0) + 1;
      perCompany[c] = index;
      accepted.push(submit(c, index));
    }
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(accepted);
  const burstAt = Date.now();

  // Into the paced backlog: five windows in (the drain lasts about ten at 1 s, eight at 10 s).
  await new Promise((r) => setTimeout(r, 5 * W));
  const small = await submit(5, 0);

  const total = accepted.length + 1 + warmups;
  await poll(async () => (await rig.settled()) >= total, 250);

  const rows = (
    await rig.query<{
      id: string;
      companyId: string;
      credentialId: string;
      status: string;
      firstSentAt: number | string | null;
      createdAt: string;
    }>(
      `select id, company_id "companyId", credential_id "credentialId", status, first_sent_at "firstSentAt",
        created_at "createdAt" from submissions`,
    )
  )
    .map((r) => ({ ...r, firstSentAt: r.firstSentAt === null ? null : Number(r.firstSentAt) }))
    .filter((r) => r.companyId !== warmupCompanyId);
  const attempts = await rig.query<{ c: string; k: string; t: string; l: number; st: number | null }>(
    "select s.company_id c, s.credential_id k, a.started_at t, a.latency_ms l, a.status st from submission_attempts a join submissions s on s.id = a.submission_id",
  );
  const sends = attempts
    .filter((a) => a.c !== warmupCompanyId)
    .map((a) => ({ company: a.c, credential: a.k, at: Date.parse(a.t), end: Date.parse(a.t) + a.l }));
  const firstSend = Math.min(...sends.map((s) => s.at));
  const lastAnswer = Math.max(...sends.map((s) => s.end));

  const byNode = new Map<string, { count: number; windowMs: number; limit: number }>();
  const add = (node: string, limit: number) => {
    const entry = byNode.get(node) ?? { count: 0, windowMs: W, limit };
    entry.count++;
    byNode.set(node, entry);
  };
  for (const row of rows) {
    const ci = companies.findIndex((c) => c.id === row.companyId);
    add(`credential:${row.credentialId}`, PER_CREDENTIAL);
    add(`company:${row.companyId}`, companyNodeLimit(ci));
    add("egress", EGRESS);
  }
  const tMin = Math.max(...[...byNode.values()].map((n) => (n.count * n.windowMs) / n.limit));
  const drainMs = lastAnswer - firstSend;
  // With long windows, over the windows after the first: the sends from the first's end on, against the time from there.
  const utilisation = W > 1_000 ? utilisationAfter(firstSend + W) : tMin / drainMs;

  // Fairness: 1 s windows in which every one of the 5 bursting companies still had a backlog.
  const bursting = companies.slice(0, 5).map((c) => c.id);
  const demand = companies.slice(0, 5).map((c, i) => Math.min(c.keys.length * PER_CREDENTIAL, companyNodeLimit(i)));
  const fairShare = maxMinShares(demand, EGRESS);
  const {
    mean: fairness,
    min: fairnessMin,
    windows,
    idleWindows,
    backloggedUntil: allBackloggedUntil,
  } = windowedFairness({ sends, companies: bursting, shares: fairShare, windowMs: W });

  /** T_min of the sends from `from` on (every node's count × W/N, the largest), over `from` → last answer. */
  function utilisationAfter(from: number): number {
    const later = new Map<string, number>();
    for (const s of sends.filter((send) => send.at >= from)) {
      const ci = companies.findIndex((c) => c.id === s.company);
      for (const [node, limit] of [
        [`credential:${s.credential}`, PER_CREDENTIAL],
        [`company:${s.company}`, companyNodeLimit(ci)],
        ["egress", EGRESS],
      ] as const) {
        later.set(node, (later.get(node) ?? 0) + W / limit);
      }
    }
    return Math.max(...later.values()) / (lastAnswer - from);
  }

  const smallRow = rows.find((r) => r.id === small.submission.submissionId);
  const smallWait = (smallRow?.firstSentAt ?? Number.NaN) - Date.parse(smallRow?.createdAt ?? "");
  const smallBound = 2 * (W / EGRESS) + 50;
  const totals = await rig.upstreamTotals();
  const failed = rows.filter((r) => r.status === "failed").length;
  const latencies = attempts.map((a) => a.l).sort((a, b) => a - b);
  const perSecond: number[] = [];
  for (const s of sends) {
    const i = Math.floor((s.at - firstSend) / W);
    perSecond[i] = (perSecond[i] ?? 0) + 1;
  }
  console.log(`sends per window (${W} ms) from the first: ${Array.from(perSecond, (n) => n ?? 0).join(" ")}`);
  const slow = attempts.filter((a) => a.l > 200 && a.c !== warmupCompanyId);
  console.log(
    `slow attempts (>200 ms): ${slow.length}, statuses ${JSON.stringify([...new Set(slow.map((a) => a.st))])}, at +${slow
      .slice(0, 8)
      .map((a) => Date.parse(a.t) - firstSend)
      .join(",")} ms`,
  );
  console.log(
    `upstream round trip: p50 ${latencies[Math.floor(latencies.length / 2)]} ms, p99 ${latencies[Math.floor(latencies.length * 0.99)]} ms`,
  );
  const bigSends = sends
    .filter((s) => s.company === companies[0]?.id && s.at > allBackloggedUntil + W)
    .map((s) => s.at);
  if (bigSends.length > 1) {
    const span = (Math.max(...bigSends) - Math.min(...bigSends)) / 1000;
    console.log(
      `company A alone: ${((bigSends.length / span) * (W / 1_000)).toFixed(1)} per window (its limit ${BIG_COMPANY})`,
    );
  }

  console.log(
    `forwarded ${rows.length - failed}, failed ${failed}; upstream admitted ${totals.admitted}, 429s ${totals.limited}`,
  );
  console.log(
    `T_min ${(tMin / 1000).toFixed(2)} s, drain ${(drainMs / 1000).toFixed(2)} s (first send → last answer), burst committed ${new Date(burstAt).toISOString()}`,
  );
  console.log(
    `fairness over ${windows} windows (${idleWindows} more with no send at all): mean ${fairness.toFixed(4)}, min ${fairnessMin.toFixed(4)} (fair shares ${fairShare.map((s) => s.toFixed(1)).join("/")} req/s)`,
  );
  console.log(
    `idle company's submission: commit → send ${smallWait} ms (bound 2 × W/N_egress + 50 = ${smallBound} ms)`,
  );
  console.log(
    `RESULT driver=${driver} store=${store} window_s=${W / 1_000} utilisation=${utilisation.toFixed(4)} upstream_429=${totals.limited} fairness=${fairness.toFixed(4)} small_first_wait_ms=${smallWait} small_first_bound_ms=${smallBound} drain_s=${(drainMs / 1000).toFixed(2)}`,
  );
  await rig.close();
}
