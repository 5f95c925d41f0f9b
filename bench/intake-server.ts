/**
 * The server side of `npm run bench:intake`, run in its own process so the load generator does not share its event
 * loop: `echo` is a bare Hono route that parses and echoes JSON; `floor` parses and commits the raw body to a file
 * database, nothing else; `gateway` is the real intake on a file database, or on PostgreSQL when a database URL
 * follows the profiles (a scratch database the bench made). The gateway traces as the OTEL_* variables say
 * (docs/tracing.md): the bench turns them on for its traced gateway only.
 * Prints one JSON line `{url, keys}` when listening.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { parseEnv, tracingConfig } from "../src/config.js";
import { openSqlite } from "../src/db/sqlite.js";
import { createConnection } from "../src/gateway/connections/create-connection.js";
import { createGateway } from "../src/gateway/create-gateway.js";
import { createUpstreamCredential } from "../src/gateway/credentials/upstream-credentials.js";
import { createVendorKey } from "../src/gateway/keys/vendor-keys.js";
import { loadProfileDir } from "../src/gateway/profiles/index.js";
import { createProfile, publishProfileVersion, saveProfileVersion } from "../src/gateway/profiles-admin/profiles.js";
import { createCompany } from "../src/gateway/tenants/create-company.js";
import { startTracing } from "../src/gateway/tracing/index.js";
import { listen } from "../src/http/server.js";
import { createLogger } from "../src/log.js";

const mode = process.argv[2];

if (mode === "echo") {
  const app = new Hono();
  app.post("/api/inbound/leads", async (c) => c.json(await c.req.json(), 202));
  const server = await listen(app, { host: "127.0.0.1", port: 0 });
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
} else if (mode === "floor") {
  // What any intake that commits before it answers pays, and no more: parse, one row in a WAL file database committed
  // in a group per event-loop turn (as the gateway's SubmissionWriter), 202. No key, no mapping, no validation.
  const sqlite = openSqlite(join(mkdtempSync(join(tmpdir(), "pg-bench-floor-")), "floor.db"));
  sqlite.exec("create table rows (id text primary key, payload text not null, created_at text not null)");
  const insert = sqlite.prepare("insert into rows (id, payload, created_at) values (?, ?, ?)");
  const commit = sqlite.transaction((batch: [string, string][]) => {
    const at = new Date().toISOString();
    for (const [id, payload] of batch) insert.run(id, payload, at);
  });
  let batch: { row: [string, string]; done: () => void }[] = [];
  const write = (row: [string, string]) =>
    new Promise<void>((done) => {
      if (batch.length === 0)
        setImmediate(() => {
          const flushing = batch;
          batch = [];
          commit(flushing.map((p) => p.row));
          for (const p of flushing) p.done();
        });
      batch.push({ row, done });
    });
  let next = 0;
  const app = new Hono();
  app.post("/api/inbound/leads", async (c) => {
    const raw = await c.req.text();
    JSON.parse(raw);
    const id = `sub_${++next}`;
    await write([id, raw]);
    return c.json({ submissionId: id, status: "queued" }, 202);
  });
  const server = await listen(app, { host: "127.0.0.1", port: 0 });
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
} else if (mode === "gateway") {
  const dir = mkdtempSync(join(tmpdir(), "pg-bench-"));
  const log = createLogger({ level: "silent" });
  // As `serve` reads them: off unless the bench set OTEL_* for this process.
  const traces = tracingConfig(parseEnv(), "partner-gateway");
  const tracing = traces ? await startTracing(traces, log) : undefined;
  const gateway = await createGateway({
    ...(tracing ? { tracing } : {}),
    databasePath: join(dir, "gateway.db"),
    ...(process.argv[5] ? { databaseUrl: process.argv[5] } : {}),
    log,
    settings: { intakeLimit: { ratePerSecond: 1_000_000, burst: 1_000_000 } },
    masterKey: "0".repeat(64),
  });
  const { ctx } = gateway;
  const company = await createCompany({ ctx, input: { name: "Bench Co" } });
  const credential = await createUpstreamCredential({
    ctx,
    companyId: company.id,
    input: { name: "general", value: `svc_test_benchcredential.${"s".repeat(43)}` },
  });
  const bind = async (dir: string) => {
    const loaded = await loadProfileDir(dir);
    const profile = await createProfile({
      ctx,
      companyId: company.id,
      input: { name: loaded.name, kind: loaded.kind },
    });
    const saved = await saveProfileVersion({
      ctx,
      companyId: company.id,
      profileId: profile.id,
      input: { expression: loaded.expression, samples: loaded.samples },
    });
    return (await publishProfileVersion({ ctx, companyId: company.id, versionId: saved.version.id })).id;
  };
  const input = { partnerType: "lead_source" as const, scopes: ["leads:write" as const], credentialId: credential.id };
  const normal = await createVendorKey({
    ctx,
    companyId: company.id,
    input: { ...input, name: "normal", leadProfileVersionId: await bind(process.argv[3] ?? "") },
  });
  const runaway = await createVendorKey({
    ctx,
    companyId: company.id,
    input: { ...input, name: "runaway", leadProfileVersionId: await bind(process.argv[4] ?? "") },
  });
  const plain = await createVendorKey({ ctx, companyId: company.id, input: { ...input, name: "canonical" } });
  // A hook connection mapping with the same profile, its vendor's JSON signed as Meta signs (HMAC-SHA256 of the raw
  // body, hex, `sha256=`): the hook case of bench:intake (docs/connections.md).
  const hookSecret = "bench-hook-signing-secret";
  const hook = await createConnection({
    ctx,
    companyId: company.id,
    input: {
      name: "bench hook",
      secrets: { signingKey: hookSecret },
      credentialId: credential.id,
      profileVersionId: normal.leadProfileVersionId ?? undefined,
      settings: {
        bodyType: "json",
        proof: {
          type: "hmac",
          algorithm: "sha256",
          secret: "signingKey",
          signature: { header: "x-hub-signature-256", prefix: "sha256=", encoding: "hex" },
        },
        answer: { status: 200, contentType: "application/json", body: '{"received":true}' },
      },
    },
  });
  const server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
  // What the evaluators went through (restarts: workers killed at a deadline or lost), for the bench's output.
  process.once("SIGTERM", () => {
    process.stderr.write(`gateway evaluators: ${JSON.stringify(ctx.engine.stats())}\n`);
    process.exit(0);
  });
  const keys = { normal: normal.key, runaway: runaway.key, plain: plain.key };
  const hookPath = new URL(hook.hookUrl).pathname;
  process.stdout.write(`${JSON.stringify({ url: server.url, keys, hook: { path: hookPath, secret: hookSecret } })}\n`);
} else {
  process.stderr.write(
    "usage: intake-server.ts echo | floor | gateway PROFILE_DIR RUNAWAY_PROFILE_DIR [DATABASE_URL]\n",
  );
  process.exit(2);
}

// Exit through process.exit so `--cpu-prof` can write its profile when the bench stops this server.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(0));
