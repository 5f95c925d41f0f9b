/**
 * The server side of `npm run bench:intake`, run in its own process so the load generator does not share its event
 * loop: `echo` is a bare Hono route that parses and echoes JSON; `gateway` is the real intake on a file database.
 * Prints one JSON line `{url, keys}` when listening.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { createGateway } from "../src/gateway/create-gateway.js";
import { createUpstreamCredential } from "../src/gateway/credentials/upstream-credentials.js";
import { createVendorKey } from "../src/gateway/keys/vendor-keys.js";
import { loadProfileDir } from "../src/gateway/profiles/index.js";
import { createProfile, publishProfileVersion, saveProfileVersion } from "../src/gateway/profiles-admin/profiles.js";
import { createCompany } from "../src/gateway/tenants/create-company.js";
import { listen } from "../src/http/server.js";
import { createLogger } from "../src/log.js";

const mode = process.argv[2];

if (mode === "echo") {
  const app = new Hono();
  app.post("/api/inbound/leads", async (c) => c.json(await c.req.json(), 202));
  const server = await listen(app, { host: "127.0.0.1", port: 0 });
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
} else if (mode === "gateway") {
  const dir = mkdtempSync(join(tmpdir(), "pg-bench-"));
  const gateway = createGateway({
    databasePath: join(dir, "gateway.db"),
    log: createLogger({ level: "silent" }),
    settings: { intakeLimit: { ratePerSecond: 1_000_000, burst: 1_000_000 } },
    masterKey: "0".repeat(64),
  });
  const { ctx } = gateway;
  const company = createCompany({ ctx, input: { name: "Bench Co" } });
  const credential = createUpstreamCredential({
    ctx,
    companyId: company.id,
    input: { name: "general", value: `svc_test_benchcredential.${"s".repeat(43)}` },
  });
  const bind = async (dir: string) => {
    const loaded = await loadProfileDir(dir);
    const profile = createProfile({ ctx, companyId: company.id, input: { name: loaded.name, kind: loaded.kind } });
    const saved = await saveProfileVersion({
      ctx,
      companyId: company.id,
      profileId: profile.id,
      input: { expression: loaded.expression, samples: loaded.samples },
    });
    return (await publishProfileVersion({ ctx, companyId: company.id, versionId: saved.version.id })).id;
  };
  const input = { partnerType: "lead_source" as const, scopes: ["leads:write" as const], credentialId: credential.id };
  const normal = createVendorKey({
    ctx,
    companyId: company.id,
    input: { ...input, name: "normal", leadProfileVersionId: await bind(process.argv[3] ?? "") },
  });
  const runaway = createVendorKey({
    ctx,
    companyId: company.id,
    input: { ...input, name: "runaway", leadProfileVersionId: await bind(process.argv[4] ?? "") },
  });
  const plain = createVendorKey({ ctx, companyId: company.id, input: { ...input, name: "canonical" } });
  const server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
  const keys = { normal: normal.key, runaway: runaway.key, plain: plain.key };
  process.stdout.write(`${JSON.stringify({ url: server.url, keys })}\n`);
} else {
  process.stderr.write("usage: intake-server.ts echo | gateway PROFILE_DIR RUNAWAY_PROFILE_DIR\n");
  process.exit(2);
}

// Exit through process.exit so `--cpu-prof` can write its profile when the bench stops this server.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(0));
