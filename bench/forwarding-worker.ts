/**
 * A forwarding worker process of `npm run bench:drain` (BullMQ driver), as `partner-gateway worker` runs it but with
 * the bench's per-second limits. Prints `{"pid": …}` once it takes jobs; SIGTERM closes it gracefully.
 * usage: forwarding-worker.ts DB_PATH UPSTREAM_URL REDIS_URL PREFIX MASTER_KEY LIMITS_JSON [DATABASE_URL] (with
 * DATABASE_URL, PostgreSQL instead of the file; BENCH_WORKER_LOG=debug: logs on stderr)
 */
import { createForwardingWorker } from "../src/gateway/create-worker.js";
import type { ForwardingLimits } from "../src/gateway/forwarding/limits.js";
import { createLogger } from "../src/log.js";

const [databasePath = "", upstreamUrl = "", url = "", prefix = "", masterKey = "", limits = "{}", databaseUrl] =
  process.argv.slice(2);
const worker = await createForwardingWorker({
  databasePath,
  ...(databaseUrl ? { databaseUrl } : {}),
  log: createLogger({
    level: (process.env.BENCH_WORKER_LOG as "silent" | undefined) ?? "silent",
    destination: process.stderr,
  }),
  masterKey,
  forwarding: { upstreamUrl, limits: JSON.parse(limits) as ForwardingLimits, redis: { url, prefix } },
});
await worker.started;
process.stdout.write(`${JSON.stringify({ pid: process.pid })}\n`);
process.once("SIGTERM", () => {
  void worker.close(5_000).then(() => process.exit(0));
});
