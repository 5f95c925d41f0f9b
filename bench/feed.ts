/**
 * `npm run bench:feed`: the Installer API's change feed does not get slower with history (§2.2, §4.1), and a
 * version-checked write costs little more than a read.
 *
 * Seeding (in this process, through the sandbox's own storage modules, each size in one transaction): a sandbox
 * database file with the default seed, one installer company (A) with 10,000 jobs and one change each, and another
 * installer company (B) with a change after every fourth of A's. That file is copied and the copy grown to 1,000,000
 * changes of A over the same 10,000 jobs (versions 2 to 100), B's still interleaved. Then two sandboxes run as
 * `partner-gateway sandbox --db FILE`, one on each file, their limits raised through the admin API.
 *
 * Measured over HTTP, one request at a time, the cases interleaved so drift hits all alike:
 * - the feed of A at 10,000 and at 1,000,000 changes: the first page without a cursor, and the page after a cursor
 *   10 % of the way into the history (50 items each);
 * - on the 1,000,000 sandbox: a status event (Idempotency-Key, version check, feed item, event and one delivery to
 *   a subscription of A) and a GET of one job.
 *
 * RESULT: feed_1m_vs_10k_p95 = the worse of (first page, deep page) p95 at 1M over the same at 10k (target ≤ 1.2);
 * feed_deep_vs_first_p95 = the worse, at either size, of deep page p95 over first page p95 (≤ 1.2); write_p95_ms;
 * write_vs_read_p95 = status event p95 over GET one job p95 (≤ 3).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createLogger } from "../src/log.js";
import type { SandboxTx } from "../src/sandbox/db/client.js";
import type { InstallJobRow, JobStatus } from "../src/sandbox/db/schema/index.js";
import { createSandbox } from "../src/sandbox/index.js";
import { type InstallerJob, installerJob } from "../src/sandbox/installer/jobs/projection.js";
import { appendFeedItems, lastSequence, type NewFeedItem } from "../src/sandbox/installer/store/feed.js";
import { saveJobs } from "../src/sandbox/installer/store/jobs.js";

const JOBS = 10_000;
const SMALL_CHANGES = 10_000;
const LARGE_CHANGES = Number(process.env.BENCH_FEED_CHANGES ?? 1_000_000);
/** B changes once after every fourth change of A. */
const B_EVERY = 4;
const B_JOBS = JOBS / B_EVERY;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 400);
const WRITES = Number(process.env.BENCH_WRITES ?? 400);
const PAGE = 50;
const ADMIN_TOKEN = randomBytes(24).toString("base64url");
const JOB_COMPANY = { id: "org_sunrise", name: "Sunrise Solar Co." };

const dir = mkdtempSync(join(tmpdir(), "bench-feed-"));
const smallPath = join(dir, "feed-10k.db");
const largePath = join(dir, "feed-1m.db");
const log = (line: string) => process.stdout.write(`${line}\n`);

// --- seeding -------------------------------------------------------------------------------------------------------

interface Installer {
  companyId: string;
  key: string;
  jobs: InstallJobRow[];
}

const t0 = Date.parse("2026-01-01T00:00:00.000Z");
const at = (n: number) => new Date(t0 + n * 1000).toISOString();

function jobRow(id: string, installerCompanyId: string, n: number): InstallJobRow {
  return {
    id,
    companyId: JOB_COMPANY.id,
    installerCompanyId,
    version: 1,
    status: "ACKNOWLEDGED",
    customer: {
      name: `Customer ${n}`,
      phone: "+1 602 555 0100",
      email: `customer${n}@example.com`,
      address: { line1: `${n} Bench Street`, city: "Phoenix", state: "AZ", zip: "85004" },
    },
    scope: {
      packageName: "Solar 8 kW rooftop",
      systemType: "SOLAR_PV",
      equipment: [
        { sku: "PNL-400-MONO", description: "400 W monocrystalline panel", qty: 20 },
        { sku: "INV-7600-HY", description: "7.6 kW hybrid inverter", qty: 1 },
      ],
      accessories: [{ sku: "RAIL-KIT-20", description: "Racking rail kit", qty: 5 }],
      supplierSources: [{ supplier: "Desert Solar Supply", reference: `PO-${n}` }],
    },
    scopeVersion: 1,
    acknowledgedScopeVersion: 1,
    schedule: {
      status: "CONFIRMED",
      startsAt: "2027-01-10T15:00:00.000Z",
      endsAt: "2027-01-10T23:00:00.000Z",
      timeZone: "America/Phoenix",
    },
    blockerCodes: [],
    technicianAssignments: [{ membershipId: `mem_bench_${n % 50}`, assignedAt: at(0) }],
    commercial: {
      quotePrice: { amount: 24800, currency: "USD" },
      options: [],
      margin: 0.27,
      financing: null,
      payments: [],
      signatures: [],
    },
    cancellationReason: null,
    completionAcceptedAt: null,
    createdAt: at(0),
    updatedAt: at(0),
  };
}

/** Statuses a job alternates through as its versions go up: ACKNOWLEDGED ⇄ BLOCKED, both allowed by §3.1. */
const statusAt = (version: number): JobStatus => (version % 2 === 0 ? "BLOCKED" : "ACKNOWLEDGED");

/** One feed item of a job at a version, its resource the §2.1 projection made by the sandbox's own function. */
function item(job: InstallJobRow, projection: InstallerJob, version: number, n: number): NewFeedItem {
  projection.version = version;
  projection.status = statusAt(version);
  projection.updatedAt = at(n);
  job.version = version;
  job.status = projection.status;
  job.updatedAt = projection.updatedAt;
  return {
    jobId: job.id,
    installerCompanyId: job.installerCompanyId,
    kind: "change",
    changedAt: projection.updatedAt,
    resource: JSON.stringify(projection),
  };
}

/**
 * Appends `changesOfA` changes of A from `fromVersion`, one round of versions over all its jobs at a time, with a
 * change of B after every fourth; jobs are saved as they end up. Returns the sequence of A's item at `deepAt`.
 */
function grow(tx: SandboxTx, a: Installer, b: Installer, fromVersion: number, changesOfA: number, deepAt: number) {
  const projections = new Map(
    [...a.jobs, ...b.jobs].map((j) => [j.id, installerJob({ job: j, companyName: JOB_COMPANY.name, documents: [] })]),
  );
  const first = lastSequence(tx) + 1;
  let chunk: NewFeedItem[] = [];
  let appended = 0;
  let deepSequence = 0;
  let bTurn = 0;
  const push = (entry: NewFeedItem) => {
    chunk.push(entry);
    appended++;
    if (chunk.length === 20_000) {
      appendFeedItems(tx, chunk);
      chunk = [];
    }
  };
  for (let n = 0; n < changesOfA; n++) {
    const version = fromVersion + Math.floor(n / JOBS);
    const job = a.jobs[n % JOBS] as InstallJobRow;
    if (n === deepAt) deepSequence = first + appended;
    push(item(job, projections.get(job.id) as InstallerJob, version, first + appended));
    if (n % B_EVERY === B_EVERY - 1) {
      const other = b.jobs[bTurn % B_JOBS] as InstallJobRow;
      const otherVersion = fromVersion + Math.floor(bTurn / B_JOBS);
      bTurn++;
      push(item(other, projections.get(other.id) as InstallerJob, otherVersion, first + appended));
    }
  }
  appendFeedItems(tx, chunk);
  saveJobs(tx, [...a.jobs, ...b.jobs]);
  return { deepSequence, appended };
}

function seedSmall(): { a: Installer; b: Installer; deep: number } {
  const sandbox = createSandbox({ dbPath: smallPath, log: createLogger({ level: "silent" }) });
  const installer = (name: string, prefix: string): Installer => {
    const company = sandbox.admin.createCompany({ name, kind: "installer_company", people: [], contractors: [] });
    const { key } = sandbox.admin.createKey({ companyId: company.id, kind: "installer-company" });
    const count = prefix === "a" ? JOBS : B_JOBS;
    const jobs = Array.from({ length: count }, (_, i) => jobRow(`job_bench_${prefix}_${i}`, company.id, i));
    return { companyId: company.id, key, jobs };
  };
  const a = installer("Bench Installer A", "a");
  const b = installer("Bench Installer B", "b");
  const started = performance.now();
  const { deepSequence, appended } = sandbox.admin.ctx.db.transaction((tx) => {
    saveJobs(tx, [...a.jobs, ...b.jobs]);
    return grow(tx, a, b, 1, SMALL_CHANGES, SMALL_CHANGES / 10);
  });
  log(`seeded ${appended.toLocaleString()} changes (10,000 of A) in ${(performance.now() - started).toFixed(0)} ms`);
  sandbox.close();
  return { a, b, deep: deepSequence };
}

function seedLarge(a: Installer, b: Installer): number {
  const sandbox = createSandbox({ dbPath: largePath, log: createLogger({ level: "silent" }) });
  const started = performance.now();
  const { deepSequence, appended } = sandbox.admin.ctx.db.transaction((tx) =>
    grow(tx, a, b, 2, LARGE_CHANGES - SMALL_CHANGES, LARGE_CHANGES / 10 - SMALL_CHANGES),
  );
  log(
    `grew the copy by ${appended.toLocaleString()} changes to ${LARGE_CHANGES.toLocaleString()} of A in ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  sandbox.close();
  return deepSequence;
}

const { a, b, deep: smallDeep } = seedSmall();
copyFileSync(smallPath, largePath);
const largeDeep = seedLarge(a, b);

// --- the sandboxes, as `partner-gateway sandbox --db FILE` ---------------------------------------------------------

interface Server {
  url: string;
  child: ChildProcess;
}

async function startSandboxProcess(dbPath: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "src/main.ts", "sandbox", "--host", "127.0.0.1", "--port", "0", "--db", dbPath],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: "warn" },
    },
  );
  // The banner goes to stderr when stdout is not a terminal (src/cli/terminal.ts): read both, pass stderr on.
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`sandbox on ${dbPath} exited with ${code}`)));
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream as NodeJS.ReadableStream }).on("line", (line) => {
        const match = /listening on (http:\/\/\S+)/.exec(line);
        if (match?.[1]) resolve(match[1]);
        else if (stream === child.stderr) process.stderr.write(`${line}\n`);
      });
    }
  });
  child.removeAllListeners("exit");
  const limits = await fetch(`${url}/sandbox/admin/limits`, {
    method: "PUT",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({
      key: { limit: 10_000_000, windowMs: 60_000 },
      owner: { limit: 10_000_000, windowMs: 60_000 },
    }),
  });
  if (limits.status !== 200) throw new Error(`raising limits: ${limits.status}`);
  return { url, child };
}

const small = await startSandboxProcess(smallPath);
const large = await startSandboxProcess(largePath);

// --- measuring -----------------------------------------------------------------------------------------------------

interface Case {
  label: string;
  samples: number[];
  run: () => Promise<void>;
}

async function timed(c: Case): Promise<number> {
  const started = performance.now();
  await c.run();
  return performance.now() - started;
}

function feedCase(label: string, server: Server, query: string): Case {
  return {
    label,
    samples: [],
    run: async () => {
      const res = await fetch(`${server.url}/api/partner/v1/jobs?limit=${PAGE}${query}`, {
        headers: { "x-api-key": a.key },
      });
      const body = (await res.json()) as { resources: unknown[] };
      if (res.status !== 200 || body.resources.length !== PAGE) throw new Error(`${label}: ${res.status}`);
    },
  };
}

const feedCases = [
  feedCase("10k first page", small, ""),
  feedCase("10k deep page", small, `&cursor=${smallDeep - 1}`),
  feedCase("1M first page", large, ""),
  feedCase("1M deep page", large, `&cursor=${largeDeep - 1}`),
];
for (let i = 0; i < 50; i++) for (const c of feedCases) await timed(c);
for (let round = 0; round < ROUNDS; round++) for (const c of feedCases) c.samples.push(await timed(c));

// A subscription of A to install.status_changed, answered by a receiver here.
let delivered = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    delivered++;
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
const session = (await (
  await fetch(`${large.url}/sandbox/admin/companies/${a.companyId}/owner-session`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  })
).json()) as { sessionToken: string };
const subscribed = await fetch(`${large.url}/partner-api/webhooks`, {
  method: "POST",
  headers: { authorization: `Bearer ${session.sessionToken}`, "content-type": "application/json" },
  body: JSON.stringify({ url: receiverUrl, events: ["install.status_changed"], partnerType: "installer_company" }),
});
if (subscribed.status !== 201) throw new Error(`subscribing: ${subscribed.status}`);

const state = new Map(a.jobs.map((j) => [j.id, { version: j.version, status: j.status }]));
let turn = 0;
const writeCase: Case = {
  label: "status event",
  samples: [],
  run: async () => {
    const job = a.jobs[turn++ % JOBS] as InstallJobRow;
    const current = state.get(job.id) ?? { version: 0, status: "ACKNOWLEDGED" };
    const status = current.status === "ACKNOWLEDGED" ? "BLOCKED" : "ACKNOWLEDGED";
    const res = await fetch(`${large.url}/api/partner/v1/jobs/${job.id}/status-events`, {
      method: "POST",
      headers: { "x-api-key": a.key, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({
        status,
        occurredAt: new Date().toISOString(),
        expectedVersion: current.version,
        ...(status === "BLOCKED" ? { blockerCode: "WEATHER" } : {}),
      }),
    });
    const body = (await res.json()) as { resource: { version: number; status: JobStatus } };
    if (res.status !== 201) throw new Error(`status event: ${res.status} ${JSON.stringify(body)}`);
    state.set(job.id, body.resource);
  },
};
const readCase: Case = {
  label: "GET one job",
  samples: [],
  run: async () => {
    const job = a.jobs[(turn * 7919) % JOBS] as InstallJobRow;
    const res = await fetch(`${large.url}/api/partner/v1/jobs/${job.id}`, { headers: { "x-api-key": a.key } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET job: ${res.status}`);
  },
};
for (let i = 0; i < 50; i++) for (const c of [writeCase, readCase]) await timed(c);
for (let i = 0; i < WRITES; i++) for (const c of [writeCase, readCase]) c.samples.push(await timed(c));
const expected = 50 + WRITES;
const deadline = Date.now() + 30_000;
while (delivered < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));

// --- report --------------------------------------------------------------------------------------------------------

const p95 = (xs: number[]) => {
  const sorted = [...xs].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)] ?? 0;
};
const p50 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0;
log(
  `\n${ROUNDS} rounds of feed pages (${PAGE} items), ${WRITES} writes and reads, one request at a time (p50 / p95 ms):`,
);
for (const c of [...feedCases, writeCase, readCase]) {
  log(`  ${c.label.padEnd(16)} ${p50(c.samples).toFixed(2).padStart(7)} / ${p95(c.samples).toFixed(2).padStart(7)}`);
}
log(`  deliveries to the subscription: ${delivered} of ${expected}`);
const at95 = (label: string) => p95(feedCases.find((c) => c.label === label)?.samples ?? []);
const firstRatio = at95("1M first page") / at95("10k first page");
const deepRatio = at95("1M deep page") / at95("10k deep page");
const deepVsFirst = Math.max(
  at95("10k deep page") / at95("10k first page"),
  at95("1M deep page") / at95("1M first page"),
);
const writeP95 = p95(writeCase.samples);
log(
  `ratios: first page 1M/10k ${firstRatio.toFixed(2)}, deep page 1M/10k ${deepRatio.toFixed(2)}, ` +
    `deep/first ${deepVsFirst.toFixed(2)}, write/read ${(writeP95 / p95(readCase.samples)).toFixed(2)}`,
);

receiver.close();
for (const server of [small, large]) server.child.kill("SIGTERM");
await Promise.all(
  [small, large].map(
    (s) => new Promise((resolve) => (s.child.exitCode === null ? s.child.once("exit", resolve) : resolve(0))),
  ),
);
rmSync(dir, { recursive: true, force: true });
log(
  `RESULT feed_1m_vs_10k_p95=${Math.max(firstRatio, deepRatio).toFixed(2)} ` +
    `feed_deep_vs_first_p95=${deepVsFirst.toFixed(2)} write_p95_ms=${writeP95.toFixed(2)} ` +
    `write_vs_read_p95=${(writeP95 / p95(readCase.samples)).toFixed(2)}`,
);
