import { parseArgs } from "node:util";
import { ConfigError, parseEnv, tracingConfig } from "../config.js";
import { checkLiveConfig, loadConfigFile } from "../gateway/config/config-file.js";
import { createForwardingWorker } from "../gateway/create-worker.js";
import { startTracing } from "../gateway/tracing/index.js";
import { configuredLimits, configuredRedis } from "./forwarding-options.js";
import { onShutdown } from "./shutdown.js";
import { commandLogger } from "./terminal.js";

const USAGE = `usage: partner-gateway worker [--config FILE]

Runs forwarding workers only (the BullMQ driver; REDIS_URL is required): takes send jobs and, when elected, dispatches
within the upstream's limits. Run as many as you like beside one or more 'partner-gateway serve --api-only'
processes on the same database (DATABASE_URL, or DATABASE_PATH on one machine). The upstream is UPSTREAM_URL (or the config file's upstreamUrl); in sandbox mode
point it at the serve process's embedded sandbox (http://127.0.0.1:8090 by default). The config file is read for
upstreamUrl and upstreamLimits only; serve applies the rest.
`;

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { config: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const env = parseEnv();
  const configPath = values.config ?? env.CONFIG_FILE;
  const loaded = configPath ? await loadConfigFile(configPath) : undefined;
  const redis = configuredRedis(env);
  if (!redis) throw new ConfigError("REDIS_URL: required by the worker command (the BullMQ driver)");
  const upstreamUrl = loaded?.config.upstreamUrl ?? env.UPSTREAM_URL;
  if (!upstreamUrl)
    throw new ConfigError("UPSTREAM_URL: required by the worker command (in sandbox mode: the sandbox)");
  const mode = loaded?.config.mode ?? env.MODE;
  if (mode === "live" && !upstreamUrl.startsWith("https://")) {
    throw new ConfigError("UPSTREAM_URL: must be https in live mode");
  }
  // The file serve refuses in live mode, the worker refuses too (a sandbox run's short limit windows among them).
  if (mode === "live" && loaded) checkLiveConfig(loaded.config, loaded.source);
  const log = commandLogger(env, "worker");
  const limits = loaded ? configuredLimits(loaded) : undefined;
  // The attempts and settlements it runs continue the traces their requests began (docs/tracing.md).
  const traces = tracingConfig(env, "partner-gateway-worker");
  const tracing = traces ? await startTracing(traces, log) : undefined;
  const worker = await createForwardingWorker({
    ...(tracing ? { tracing } : {}),
    databasePath: env.DATABASE_PATH,
    databaseUrl: env.DATABASE_URL,
    postgres: { poolMax: env.PG_POOL_MAX, statementTimeoutMs: env.PG_STATEMENT_TIMEOUT_MS },
    log,
    masterKey: env.MASTER_KEY,
    settings: { mode },
    forwarding: { upstreamUrl, ...(limits ? { limits } : {}), redis },
  });
  await worker.started;
  log.info({ upstream: upstreamUrl, prefix: redis.prefix }, "forwarding worker running");

  // SIGTERM: the dispatcher lock goes to another worker at once; sends running here get 10 s to finish.
  onShutdown(log, async () => {
    await worker.close(10_000);
    await tracing?.shutdown();
  });
}
