/**
 * A gateway process for the crash test: a file database, forwarding to the given upstream with per-second limits,
 * the companies and keys of a config file, each key subscribed to the webhooks its partner type may have at the given
 * receiver, listening on a free port. Prints `{"url": …}` when listening.
 * usage: gateway-process.ts DB_PATH UPSTREAM_URL CONFIG_FILE RECEIVER_URL
 */
import { applyConfig } from "../../../../src/gateway/config/apply-config.js";
import { loadConfigFile } from "../../../../src/gateway/config/config-file.js";
import { createGateway } from "../../../../src/gateway/create-gateway.js";
import { EVENTS_BY_PARTNER_TYPE } from "../../../../src/gateway/webhooks/index.js";
import { createSubscription } from "../../../../src/gateway/webhooks/subscriptions/create-subscription.js";
import { listen } from "../../../../src/http/server.js";
import { createLogger } from "../../../../src/log.js";
import { testStorage } from "../../../helpers/test-store.js";

const [databasePath = "", upstreamUrl = "", configFile = "", receiverUrl = ""] = process.argv.slice(2);
const gateway = await createGateway({
  // TEST_STORE=postgres (inherited from the test): the path's own database, the same after a restart.
  ...(await testStorage(databasePath)),
  log: createLogger({ level: "silent" }),
  masterKey: "1".repeat(64),
  // Listening on 127.0.0.1, as `serve` derives it from HOST: webhooks may reach any local port.
  settings: { intakeLimit: { ratePerSecond: 100_000, burst: 100_000 }, webhookLoopbackPorts: "any" },
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
const { ctx } = gateway;
await applyConfig({ ctx, loaded: await loadConfigFile(configFile), env: {} });
// Through the stores, so the process runs on either (a restart finds the keys subscribed already).
const companyIds = await ctx.tenants.companyIds();
const keys = (await Promise.all(companyIds.map((id) => ctx.vendorKeys.listOfCompany(id)))).flat();
for (const key of keys) {
  const subscribed = await ctx.webhooks.subscriptions.listOfCompany(key.companyId, key.id);
  if (subscribed.length > 0) continue;
  const events = [...EVENTS_BY_PARTNER_TYPE[key.partnerType]];
  await createSubscription({ ctx, companyId: key.companyId, input: { vendorKeyId: key.id, url: receiverUrl, events } });
}
const server = await listen(gateway.app, { host: "127.0.0.1", port: 0 });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
