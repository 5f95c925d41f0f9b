/**
 * `npm run bench:intake-ab -- A B`: the gateway's intake CPU per request in two checkouts (directories, each with its own
 * `bench/intake-server.ts`, e.g. a `git worktree` of an older commit), loaded at the same time.
 *
 * bench:intake measures one tree, its runs one after the other; on a shared two-core machine another process's burst
 * lands in one run and not the next, and CPU per request moved 30 % between two runs of the same tree. Here both
 * gateways take the same closed-loop load in the same seconds, so whatever else the machine does falls on both alike:
 * each round gives one ratio of B's CPU per request over A's, and the RESULT line holds their median
 * (docs/performance.md, "Two trees side by side"). A tree against itself gave ratios within 0.85–1.10 per round on a
 * machine at load 3–10, so a median over 6 rounds tells a change of about 5 % or more.
 *
 * Each request is a new lead (a new e-mail, as a vendor's leads are), or with BENCH_AB_SAME=1 the same lead every
 * time, as bench:intake's `ratio` posts it. BENCH_ROUNDS (6) rounds of BENCH_SECONDS (4) s, BENCH_CONNECTIONS (32)
 * per gateway; BENCH_STORE=postgres puts both on PostgreSQL (BENCH_POSTGRES_URL, each its own scratch database)
 * instead of a SQLite file each.
 *
 * A tree whose inline mapping is demoted under load (before D-364) pays evaluator processes for it: compare such trees
 * on a quiet machine only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { newLeads, samplePayload } from "./lib/leads.js";
import { load } from "./lib/load.js";
import { postgresUnreachable, scratchDatabase } from "./lib/postgres.js";
import { median, processTreeCpuMs } from "./lib/stats.js";

const [dirA, dirB] = process.argv.slice(2).map((dir) => resolve(dir));
if (!dirA || !dirB) {
  process.stderr.write("usage: npm run bench:intake-ab -- CHECKOUT_A CHECKOUT_B\n");
  process.exit(2);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SAME = process.env.BENCH_AB_SAME === "1";
const PROFILE = "profiles/homequote-marketplace";
const RUNAWAY = "profiles/_attacks/runaway-retry-loop";

const payload = samplePayload(PROFILE);
const samePayload = JSON.stringify(payload);

interface Gateway {
  child: ChildProcess;
  url: string;
  key: string;
}

/** The bench gateway of one checkout, run from its own directory with its own code. */
async function startGateway(dir: string, databaseUrl: string | undefined): Promise<Gateway> {
  const args = ["--import", "tsx", "bench/intake-server.ts", "gateway", PROFILE, RUNAWAY];
  const env = { ...process.env };
  // The gateway's own settings come from the environment: none of the bench's may leak into it.
  for (const name of Object.keys(env)) if (name.startsWith("BENCH_")) delete env[name];
  const child = spawn(process.execPath, databaseUrl ? [...args, databaseUrl] : args, {
    cwd: dir,
    stdio: ["ignore", "pipe", "inherit"],
    env,
  });
  const info = await new Promise<{ url: string; keys: { normal: string } }>((done, fail) => {
    child.once("exit", (code) => fail(new Error(`the gateway of ${dir} exited with ${code} before it was ready`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", (line) => done(JSON.parse(line)));
  });
  return { child, url: info.url, key: info.keys.normal };
}

const nextLead = newLeads(payload, "lead");
const loadOn = (gateway: Gateway, seconds: number) =>
  load({
    url: `${gateway.url}/api/inbound/leads`,
    body: samePayload,
    headers: { "x-api-key": gateway.key },
    seconds,
    connections: CONNECTIONS,
    ...(SAME
      ? {}
      : {
          each: () => ({ body: nextLead(), headers: { "x-api-key": gateway.key } }),
        }),
  });

const postgres = process.env.BENCH_STORE === "postgres";
const unreachable = postgres ? await postgresUnreachable() : undefined;
if (unreachable) throw new Error(`BENCH_STORE=postgres: ${unreachable}`);
const databases = postgres ? [await scratchDatabase(), await scratchDatabase()] : [];
const gateways = [await startGateway(dirA, databases[0]?.url), await startGateway(dirB, databases[1]?.url)];
try {
  console.log(
    `A ${dirA}\nB ${dirB}\n${SAME ? "the same lead" : "a new lead"} each request, ${postgres ? "PostgreSQL" : "SQLite"}`,
  );
  await Promise.all(gateways.map((gateway) => loadOn(gateway, 3)));
  const cpu: [number[], number[]] = [[], []];
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const before = gateways.map((gateway) => processTreeCpuMs(gateway.child.pid ?? 0));
    const results = await Promise.all(gateways.map((gateway) => loadOn(gateway, SECONDS)));
    const perRequest = gateways.map((gateway, i) => {
      const requests = Math.max(1, (results[i]?.rps ?? 0) * SECONDS);
      return ((processTreeCpuMs(gateway.child.pid ?? 0) - (before[i] ?? 0)) * 1000) / requests;
    });
    const [a = 0, b = 0] = perRequest;
    cpu[0].push(a);
    cpu[1].push(b);
    ratios.push(b / a);
    console.log(
      `round ${round}: A ${results[0]?.rps.toFixed(0)} req/s ${a.toFixed(1)} µs CPU/req, ` +
        `B ${results[1]?.rps.toFixed(0)} req/s ${b.toFixed(1)} µs CPU/req, B/A ${(b / a).toFixed(3)}`,
    );
  }
  console.log(
    `RESULT a_cpu_us=${median(cpu[0]).toFixed(1)} b_cpu_us=${median(cpu[1]).toFixed(1)} ` +
      `cpu_ratio=${median(ratios).toFixed(3)} rounds=${ROUNDS}`,
  );
} finally {
  await Promise.all(
    gateways.map(
      (gateway) =>
        new Promise<void>((stopped) => {
          if (gateway.child.exitCode !== null) return stopped();
          gateway.child.once("exit", () => stopped());
          gateway.child.kill("SIGTERM");
        }),
    ),
  );
  for (const database of databases) await database.drop();
}
