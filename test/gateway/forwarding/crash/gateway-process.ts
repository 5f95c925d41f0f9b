/**
 * A gateway process for the crash test: a file database, forwarding to the given upstream with per-second limits,
 * the companies and keys of a config file, listening on a free port. Prints `{"url": …}` when listening.
 * usage: gateway-process.ts DB_PATH UPSTREAM_URL CONFIG_FILE
 */
import { applyConfig } from "../../../../src/gateway/config/apply-config.js";
import { loadConfigFile } from "../../../../src/gateway/config/config-file.js";
import { createGateway } from "../../../../src/gateway/create-gateway.js";
import { listen } from "../../../../src/http/server.js";
import { createLogger } from "../../../../src/log.js";

const [databasePath = "", upstreamUrl = "", configFile = ""] = process.argv.slice(2);
const gateway = createGateway({
  databasePath,
  log: createLogger({ level: "silent" }),
  masterKey: "1".repeat(64),
  settings: { intakeLimit: { ratePerSecond: 100_000, burst: 100_000 } },
  forwarding: {
    upstreamUrl,
    limits: {
      perCredential: { limit: 50, windowMs: 1_000 },
      perCompany: { limit: 100, windowMs: 1_000 },
      egress: { limit: 200, windowMs: 1_000 },
      marginMs: 1,
    },
    retry: { baseMs: 50, capMs: 500, maxAttempts: 20, horizonMs: 120_000 },
  },
});
await applyConfig({ ctx: gateway.ctx, loaded: await loadConfigFile(configFile), env: {} });
const server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
