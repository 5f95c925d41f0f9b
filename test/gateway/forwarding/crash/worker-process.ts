/**
 * A `partner-gateway worker` process for the BullMQ fault tests: forwarding only, on a shared database file and a
 * Redis, with the limits given. Prints `{"pid": …, "instanceId": …}` once it takes jobs; SIGTERM closes it gracefully.
 * usage: worker-process.ts DB_PATH UPSTREAM_URL REDIS_URL PREFIX MASTER_KEY LIMITS_JSON
 */
import { createForwardingWorker } from "../../../../src/gateway/create-worker.js";
import type { ForwardingLimits } from "../../../../src/gateway/forwarding/limits.js";
import { createLogger } from "../../../../src/log.js";
import { testStorage } from "../../../helpers/test-store.js";

const [databasePath = "", upstreamUrl = "", url = "", prefix = "", masterKey = "", limits = "{}"] =
  process.argv.slice(2);
const worker = await createForwardingWorker({
  ...(await testStorage(databasePath)),
  log: createLogger({ level: "silent" }),
  masterKey,
  forwarding: {
    upstreamUrl,
    limits: JSON.parse(limits) as ForwardingLimits,
    retry: { baseMs: 50, capMs: 200, maxAttempts: 10, horizonMs: 60_000 },
    timeoutMs: 2_000,
    redis: { url, prefix, reconcileMs: 1_000 },
  },
});
await worker.started;
process.stdout.write(`${JSON.stringify({ pid: process.pid, instanceId: worker.driver.instanceId })}\n`);
process.once("SIGTERM", () => {
  void worker.close(5_000).then(() => process.exit(0));
});
