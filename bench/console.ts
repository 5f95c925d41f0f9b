/**
 * `npm run bench:console`: the owner console's submission log, keyset-paginated, at two sizes in one run.
 *
 * One gateway (file SQLite in WAL, as `npm start` runs it) holds two companies: one with 1,000 submissions and one
 * with 100,000 (spread over 30 days, a fifth failed), seeded in one transaction through the submission-row builder.
 * For each, the owner API's `GET /owner/v1/submissions` (what the console's log page calls) is timed over HTTP with a
 * bearer token: the first page, and a page deep in the history (the cursor 90 % of the way back), plain and filtered
 * by status (its cursor 70 % back). Rounds interleave the cases so drift hits all alike.
 *
 * RESULT: console_p95_ms = the worst p95 of all cases; deep_vs_small_p95 = p95 of the deep page of 100,000 over the
 * p95 of the first page of 1,000 (target ≤ 1.5: keyset pagination makes depth and size cost nothing).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGateway } from "../src/gateway/create-gateway.js";
import { createUpstreamCredential } from "../src/gateway/credentials/upstream-credentials.js";
import { createVendorKey } from "../src/gateway/keys/vendor-keys.js";
import { createCompany } from "../src/gateway/tenants/create-company.js";
import { createOwner } from "../src/gateway/tenants/create-owner.js";
import { listen } from "../src/http/server.js";
import { createLogger } from "../src/log.js";
import { type SeedSpec, seedSubmissions } from "../test/helpers/seed-submissions.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const PAGE = 50;
const PASSWORD = "bench console password";

const dir = mkdtempSync(join(tmpdir(), "bench-console-"));
const gateway = await createGateway({
  databasePath: join(dir, "gateway.db"),
  log: createLogger({ level: "silent" }),
  masterKey: randomBytes(32).toString("hex"),
});
const { ctx } = gateway;
const server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });

async function tenant(name: string, count: number) {
  const company = await createCompany({ ctx, input: { name } });
  const email = `owner-${name.toLowerCase()}@bench.test`;
  await createOwner({ ctx, input: { companyId: company.id, email, name, role: "viewer", password: PASSWORD } });
  const credential = await createUpstreamCredential({
    ctx,
    companyId: company.id,
    input: {
      name: "general",
      value: `svc_test_bench${randomBytes(4).toString("hex")}.${randomBytes(24).toString("base64url")}`,
    },
  });
  const keys = await Promise.all(
    [0, 1, 2].map(
      async (i) =>
        (
          await createVendorKey({
            ctx,
            companyId: company.id,
            input: {
              name: `vendor ${i}`,
              partnerType: "lead_source",
              scopes: ["leads:write"],
              credentialId: credential.id,
            },
          })
        ).id,
    ),
  );
  const now = Date.now();
  const spacing = Math.floor((30 * 86_400_000) / count);
  const started = performance.now();
  function* specs(): Generator<SeedSpec> {
    for (let i = 0; i < count; i++) {
      yield {
        companyId: company.id,
        vendorKeyId: keys[i % keys.length] ?? "",
        credentialId: credential.id,
        at: now - (count - i) * spacing,
        status: i % 5 === 0 ? "failed" : "forwarded",
        payload: { n: i, name: `Person ${i}`, email: `p${i}@example.com` },
      };
    }
  }
  const ids = await seedSubmissions(gateway, specs());
  const seededMs = performance.now() - started;
  // Ids are newest-last here; a cursor 90 % of the way back in the history (the log pages newest first).
  const deepCursor = ids[Math.floor(count * 0.1)] ?? "";
  // The failed-only filter needs a page's worth of failed rows older than its cursor: 70 % of the way back.
  const failedCursor = ids[Math.floor(count * 0.3)] ?? "";
  return { name, email, count, deepCursor, failedCursor, seededMs };
}

/** A bearer token of the tenant's owner, through sign-in (session) then the token route. */
async function bearer(email: string): Promise<string> {
  const signIn = await fetch(`${server.url}/owner/v1/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  const cookie = String(signIn.headers.get("set-cookie")).split(";")[0] ?? "";
  const { csrfToken } = (await signIn.json()) as { csrfToken: string };
  const tokenRes = await fetch(`${server.url}/owner/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, "x-csrf-token": csrfToken },
    body: JSON.stringify({ name: "bench" }),
  });
  const { token } = (await tokenRes.json()) as { token: string };
  return token;
}

// Seed both first: seeding holds the event loop, and HTTP starts only once it is done.
const seeded = [await tenant("Small", 1_000), await tenant("Large", 100_000)];
const [small, large] = await Promise.all(seeded.map(async (t) => ({ ...t, token: await bearer(t.email) })));
if (!small || !large) throw new Error("unreachable");
process.stdout.write(
  `seeded 1,000 rows in ${small.seededMs.toFixed(0)} ms and 100,000 rows in ${large.seededMs.toFixed(0)} ms\n`,
);

type Tenant = typeof small;
interface Case {
  label: string;
  tenant: Tenant;
  query: string;
  samples: number[];
}
const cases: Case[] = [];
for (const t of [small, large]) {
  cases.push({ label: `${t.count} first page`, tenant: t, query: `limit=${PAGE}`, samples: [] });
  cases.push({ label: `${t.count} deep page`, tenant: t, query: `limit=${PAGE}&cursor=${t.deepCursor}`, samples: [] });
  cases.push({
    label: `${t.count} failed, deep`,
    tenant: t,
    query: `limit=${PAGE}&status=failed&cursor=${t.failedCursor}`,
    samples: [],
  });
}

async function timeOnce(c: Case): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${server.url}/owner/v1/submissions?${c.query}`, {
    headers: { authorization: `Bearer ${c.tenant.token}` },
  });
  const body = (await res.json()) as { submissions: unknown[] };
  const ms = performance.now() - started;
  if (res.status !== 200 || body.submissions.length !== PAGE) throw new Error(`${c.label}: ${res.status}`);
  return ms;
}

for (let i = 0; i < 30; i++) for (const c of cases) await timeOnce(c); // warm-up
for (let round = 0; round < ROUNDS; round++) for (const c of cases) c.samples.push(await timeOnce(c));

const p95 = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)] ?? 0;
};
const at = (label: string) => p95(cases.find((c) => c.label === label)?.samples ?? []);
process.stdout.write(`\nGET /owner/v1/submissions, ${PAGE} per page, ${ROUNDS} requests each (p50 / p95 ms):\n`);
for (const c of cases) {
  const sorted = [...c.samples].sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)] ?? 0;
  process.stdout.write(
    `  ${c.label.padEnd(26)} ${p50.toFixed(2).padStart(7)} / ${p95(c.samples).toFixed(2).padStart(7)}\n`,
  );
}
const baseline = at("1000 first page");
const deep = at("100000 deep page");
const ratios = {
  deep_vs_small_p95: deep / baseline,
  first_100k_vs_1k_p95: at("100000 first page") / baseline,
  failed_deep_100k_vs_1k_p95: at("100000 failed, deep") / at("1000 failed, deep"),
};
process.stdout.write(
  `\nratios (same run): deep page of 100,000 / first page of 1,000 = ${ratios.deep_vs_small_p95.toFixed(2)}; ` +
    `first page 100,000 / 1,000 = ${ratios.first_100k_vs_1k_p95.toFixed(2)}; ` +
    `failed-filtered deep page 100,000 / 1,000 = ${ratios.failed_deep_100k_vs_1k_p95.toFixed(2)}\n`,
);
const worst = Math.max(...cases.map((c) => p95(c.samples)));
process.stdout.write(
  `RESULT console_p95_ms=${worst.toFixed(2)} deep_vs_small_p95=${ratios.deep_vs_small_p95.toFixed(2)}\n`,
);
await server.close();
await gateway.close();
rmSync(dir, { recursive: true, force: true });
