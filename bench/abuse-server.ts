/**
 * The server side of `npm run bench:abuse`: the real gateway on a file database, behind a trusted proxy (127.0.0.1,
 * `x-forwarded-for`), with three companies: "intake" (its keys and its owner are fuzzed), "replayer" (500 stored leads
 * its owner replays) and "steady" (its key carries the load whose latency is measured). Run with --expose-gc: a second, control
 * server answers `GET /rss` with the resident set size after a full garbage collection.
 * Prints one JSON line when listening.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createGateway } from "../src/gateway/create-gateway.js";
import { createUpstreamCredential } from "../src/gateway/credentials/upstream-credentials.js";
import { acceptSubmission } from "../src/gateway/intake/accept-submission.js";
import { createVendorKey, getVendorKeyRow } from "../src/gateway/keys/vendor-keys.js";
import { loadProfileDir } from "../src/gateway/profiles/index.js";
import { createProfile, publishProfileVersion, saveProfileVersion } from "../src/gateway/profiles-admin/profiles.js";
import { createCompany } from "../src/gateway/tenants/create-company.js";
import { createOwner } from "../src/gateway/tenants/create-owner.js";
import { authenticateOwner, signInOwner } from "../src/gateway/tenants/owner-auth.js";
import { createOwnerToken } from "../src/gateway/tenants/owner-tokens.js";
import { listen } from "../src/http/server.js";
import { createLogger } from "../src/log.js";

const PROFILE = process.argv[2] ?? "profiles/homequote-marketplace";
const STORED = 500;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");

/**
 * What the gateway answered with a 5xx, as its request lines say (every answer, read by the client or not): 503s (the
 * evaluators busy, designed) apart from the rest, which are failures.
 */
const answered = { failures: 0, unavailable: 0, lastFailure: "" };
const errorLines = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split("\n")) {
      const status = /"status":(\d{3})/.exec(line)?.[1];
      if (status === "503") answered.unavailable++;
      else if (status !== undefined && Number(status) >= 500) {
        answered.failures++;
        answered.lastFailure = line.slice(0, 2_000);
      }
    }
    done();
  },
});

const dir = mkdtempSync(join(tmpdir(), "pg-bench-abuse-"));
const gateway = await createGateway({
  databasePath: join(dir, "gateway.db"),
  log: createLogger({ level: "error", destination: errorLines }),
  masterKey: "0".repeat(64),
  settings: {
    // What the sign-in scenario measures is the state a sign-in leaves behind, not scrypt's time: at the production
    // cost (N = 2^17, two at a time) its 2,400 sign-ins take a quarter of an hour on two cores.
    // BENCH_PASSWORD_COST=production measures with it anyway.
    ...(process.env.BENCH_PASSWORD_COST === "production" ? {} : { passwordCost: { N: 2 ** 10, r: 8, p: 1 } }),
    intakeLimit: { ratePerSecond: 1_000_000, burst: 1_000_000 },
    trustedProxy: { ranges: ["127.0.0.1"], header: "x-forwarded-for" },
    // The replay scenario measures the tooling lane, not the quota in front of it: a replayer as fast as the lane.
    toolingQuota: { concurrent: 4, evaluationsPerSecond: 1_000_000, burst: 1_000_000 },
  },
});
const { ctx } = gateway;
const loaded = await loadProfileDir(PROFILE);
/** The profile's samples that map to a valid lead: what a vendor's accepted leads look like. */
const samplePayloads = readdirSync(join(PROFILE, "samples"))
  .sort()
  .map(
    (name) => JSON.parse(readFileSync(join(PROFILE, "samples", name), "utf8")) as { payload: unknown; expect: object },
  )
  .filter((sample) => "body" in sample.expect)
  .map((sample) => sample.payload);

async function seed(name: string) {
  const company = await createCompany({ ctx, input: { name } });
  const credential = await createUpstreamCredential({
    ctx,
    companyId: company.id,
    input: { name: "general", value: `svc_test_benchcredential.${"s".repeat(43)}` },
  });
  const profile = await createProfile({ ctx, companyId: company.id, input: { name: loaded.name, kind: loaded.kind } });
  const saved = await saveProfileVersion({
    ctx,
    companyId: company.id,
    profileId: profile.id,
    input: { expression: loaded.expression, samples: loaded.samples },
  });
  const version = await publishProfileVersion({ ctx, companyId: company.id, versionId: saved.version.id });
  const scopes: ("leads:write" | "appointments:write")[] = ["leads:write", "appointments:write"];
  const input = { partnerType: "lead_source" as const, scopes, credentialId: credential.id };
  const mapped = await createVendorKey({
    ctx,
    companyId: company.id,
    input: { ...input, name: "mapped", leadProfileVersionId: version.id },
  });
  const plain = await createVendorKey({ ctx, companyId: company.id, input: { ...input, name: "canonical" } });
  const email = `owner@${name.toLowerCase()}.bench`;
  const password = "bench owner password";
  await createOwner({ ctx, input: { companyId: company.id, email, name, role: "admin", password } });
  const session = await signInOwner({ ctx, input: { email, password } });
  const owner = await authenticateOwner({ ctx, token: session.token });
  const issued = await createOwnerToken({ ctx, owner, input: { name: "bench" } });
  return { company, owner, mapped, plain, token: issued.token, profileId: profile.id, versionId: version.id };
}

const intake = await seed("Intake");
const replayer = await seed("Replayer");
const steady = await seed("Steady");
// The replayer's key has STORED leads to replay, as intake stored them.
const replayerKey = await getVendorKeyRow(ctx, replayer.company.id, replayer.mapped.id);
for (let i = 0; i < STORED; i++) {
  const payload = structuredClone(samplePayloads[i % samplePayloads.length]) as Record<string, unknown>;
  payload.externalId = `stored-${i}`;
  await acceptSubmission({ ctx, key: replayerKey, input: { kind: "lead", raw: JSON.stringify(payload), payload } });
}

const server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
const control = createServer((_req, res) => {
  gc();
  gc();
  const { rss, heapUsed } = process.memoryUsage();
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ rss, heapUsed, engine: ctx.engine.stats(), answered }));
});
await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));
const address = control.address();
const controlPort = typeof address === "object" && address ? address.port : 0;

process.stdout.write(
  `${JSON.stringify({
    url: server.url,
    control: `http://127.0.0.1:${controlPort}`,
    intake: {
      mappedKey: intake.mapped.key,
      plainKey: intake.plain.key,
      token: intake.token,
      ids: [intake.profileId, intake.versionId],
    },
    replayer: { token: replayer.token, keyId: replayer.mapped.id },
    steadyKey: steady.mapped.key,
    expression: loaded.expression,
    payload: samplePayloads[0],
  })}\n`,
);

// Exit through process.exit so `--cpu-prof` can write its profile when the bench stops this server.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(0));
