import { Socket } from "node:net";
import { availableParallelism } from "node:os";
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/**
 * The suites that run on both stores (docs/decisions.md, D-259): the `postgres` project runs them again with the
 * gateway fixtures on PostgreSQL (TEST_STORE=postgres, test/helpers/test-store.ts).
 */
const ON_BOTH_STORES = [
  "test/gateway/owner-api.test.ts",
  "test/gateway/owner-tooling.test.ts",
  "test/gateway/owner-limits.test.ts",
  "test/gateway/owner-contract/*.test.ts",
  "test/gateway/owner-connections.test.ts",
  "test/gateway/connections/held-remap.test.ts",
  "test/gateway/connections/presets/documented-samples.test.ts",
  "test/gateway/connections/presets/refused-requests.test.ts",
  "test/gateway/owner-sign-in.test.ts",
  "test/gateway/owner-insights.test.ts",
  "test/gateway/credential-resume.test.ts",
  "test/gateway/submission-stream.test.ts",
  "test/gateway/queue-dashboard.test.ts",
  "test/gateway/ops-endpoints.test.ts",
  "test/gateway/erasure.test.ts",
  "test/gateway/webhooks/full-loop.test.ts",
  "test/gateway/webhooks/loopback-targets.test.ts",
  "test/gateway/webhooks/led-webhooks.test.ts",
  "test/gateway/forwarding/driver-suite.test.ts",
  "test/gateway/forwarding/tenant-scoping.test.ts",
  "test/gateway/forwarding/redrive.test.ts",
  "test/gateway/forwarding/recovery.test.ts",
  "test/gateway/intake.test.ts",
  "test/gateway/intake-profiles.test.ts",
  "test/gateway/intake-lead-text.test.ts",
  "test/gateway/intake-answers.test.ts",
  "test/gateway/posting-docs.test.ts",
  "test/gateway/webhooks/settlement.test.ts",
  "test/gateway/webhooks/storage.test.ts",
  "test/gateway/webhooks/platform-receiver.test.ts",
  "test/gateway/webhooks/retention.test.ts",
  "test/gateway/webhooks/subscriptions.test.ts",
  "test/gateway/webhooks/delivery.test.ts",
  "test/gateway/webhooks/isolation.test.ts",
  "test/gateway/webhooks/who-gets-what.test.ts",
  "test/gateway/forwarding/faults.test.ts",
  "test/gateway/forwarding/crash/crash.test.ts",
  "test/gateway/forwarding/bullmq-faults.test.ts",
  "test/gateway/forwarding/bullmq-fault-matrix.test.ts",
  "test/gateway/forwarding/attempt-backoff.test.ts",
  "test/gateway/tracing/lead-trace.test.ts",
  "test/console/console.browser.test.ts",
  "test/gateway/alerts/alerts.test.ts",
  "test/gateway/alerts/notice-restart.test.ts",
  "test/console/onboarding.browser.test.ts",
  "test/gateway/onboarding/*.test.ts",
];

const POSTGRES_URL = new URL(process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");

/** Whether PostgreSQL accepts connections; under CI=true the project runs regardless (its setup then fails). */
function postgresListening(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once("error", () => done(false));
    socket.connect(Number(POSTGRES_URL.port || 5432), POSTGRES_URL.hostname, () => done(true));
  });
}

const withPostgres = process.env.CI === "true" || (await postgresListening());
if (!withPostgres) console.warn(`skipping the postgres project: PostgreSQL is unreachable at ${POSTGRES_URL.host}`);

/**
 * The files that start several processes of their own (the cluster, the crash test's gateway and workers) or drive a
 * browser against timing bounds: they run after everything else, one at a time, so that no other file's load
 * stretches their clocks (groupOrder 1, one worker). Everything else runs two files at once (groupOrder 0).
 */
const ALONE = [
  "test/cluster/several-machines.test.ts",
  "test/gateway/forwarding/crash/crash.test.ts",
  "test/console/console.browser.test.ts",
  "test/console/onboarding.browser.test.ts",
];

/** Vitest's default (one fewer worker than cores) runs one file at a time on two cores, where most files wait. */
const TOGETHER = Math.max(2, availableParallelism() - 1);

const project = (
  name: string,
  include: string[],
  alone: boolean,
  store: "sqlite" | "postgres",
): TestProjectInlineConfiguration => ({
  extends: true,
  test: {
    name,
    include: alone ? include.filter((file) => ALONE.includes(file)) : include,
    // The long outage matrix is `npm run test:faults` (vitest.faults.config.ts, D-337).
    exclude: [...configDefaults.exclude, "test/faults/**", ...(alone ? [] : ALONE)],
    maxWorkers: alone ? 1 : TOGETHER,
    sequence: { groupOrder: alone ? 1 : 0 },
    ...(store === "postgres"
      ? {
          env: { TEST_STORE: "postgres" },
          globalSetup: ["test/postgres-setup.ts"],
          // A suite listed here that opens its gateway on SQLite fails rather than passing untested on PostgreSQL.
          setupFiles: ["test/postgres-store-guard.ts"],
        }
      : {}),
  },
});

const projects = [
  project("sqlite", ["test/**/*.test.ts"], false, "sqlite"),
  project("sqlite-alone", ALONE, true, "sqlite"),
  ...(withPostgres
    ? [
        project("postgres", ON_BOTH_STORES, false, "postgres"),
        project("postgres-alone", ON_BOTH_STORES, true, "postgres"),
      ]
    : []),
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    reporters: ["default"],
    projects,
  },
});
