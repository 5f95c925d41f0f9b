import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ConfigError, type Env, parseEnv, secretEnvironment, tracingConfig } from "../config.js";
import { applyConfig } from "../gateway/config/apply-config.js";
import { checkLiveConfig, type LoadedConfig, loadConfigFile } from "../gateway/config/config-file.js";
import { createGateway } from "../gateway/create-gateway.js";
import { scheduleRetention } from "../gateway/submissions/retention-schedule.js";
import { startTracing } from "../gateway/tracing/index.js";
import { loopbackWebhookPorts } from "../gateway/webhooks/loopback-ports.js";
import { HttpMetrics } from "../http/metrics.js";
import { listen } from "../http/server.js";
import type { Logger } from "../log.js";
import { type RunningSandbox, startSandbox } from "../sandbox/index.js";
import { configuredLimits, configuredRedis } from "./forwarding-options.js";
import { linkEmbeddedSandbox } from "./link-sandbox.js";
import { onShutdown } from "./shutdown.js";
import { commandLogger, writeBanner } from "./terminal.js";

const USAGE = `usage: partner-gateway serve [--config FILE] [--api-only]

Runs the gateway. In sandbox mode (the default) without UPSTREAM_URL it also runs the embedded sandbox and forwards
to it; without --config (or CONFIG_FILE) it applies the built-in demo config (config/demo.yaml).
With REDIS_URL, forwarding uses the BullMQ driver: this process serves the API and also runs a forwarding worker,
unless --api-only (then run 'partner-gateway worker' processes beside it).
See docs/configuration.md for the settings and the config file format.
`;

export const DEMO_CONFIG = fileURLToPath(new URL("../../config/demo.yaml", import.meta.url));
/** The presets the gateway ships (presets/<id>/). */
export const SHIPPED_PRESETS = fileURLToPath(new URL("../../presets", import.meta.url));

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: "string" },
      "api-only": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const env = parseEnv();
  const configPath = values.config ?? env.CONFIG_FILE;
  const loaded = await loadConfigFile(configPath ?? DEMO_CONFIG);
  const mode = loaded.config.mode ?? env.MODE;
  checkMode(mode, env, loaded, configPath === undefined);

  const log = commandLogger(env, "gateway");
  const upstreamUrl = loaded.config.upstreamUrl ?? env.UPSTREAM_URL;
  const sandbox = upstreamUrl ? undefined : await startEmbeddedSandbox(env, log);

  const metrics = new HttpMetrics("gateway");
  const limits = configuredLimits(loaded);
  const redis = configuredRedis(env);
  if (values["api-only"] && !redis) throw new ConfigError("--api-only: needs REDIS_URL (workers share the queue)");
  // Off unless the OTEL_* settings turn it on (docs/tracing.md): then every lead is one trace.
  const traces = tracingConfig(env, "partner-gateway");
  const tracing = traces ? await startTracing(traces, log) : undefined;
  const gateway = await createGateway({
    ...(tracing ? { tracing } : {}),
    databasePath: env.DATABASE_PATH,
    databaseUrl: env.DATABASE_URL,
    postgres: { poolMax: env.PG_POOL_MAX, statementTimeoutMs: env.PG_STATEMENT_TIMEOUT_MS },
    log,
    masterKey: env.MASTER_KEY,
    metrics,
    ops: { token: env.OPS_TOKEN, separate: env.OPS_PORT !== undefined },
    forwarding: {
      upstreamUrl: upstreamUrl ?? sandbox?.url ?? "",
      ...(limits ? { limits } : {}),
      ...(redis ? { redis: { ...redis, api: true, worker: !values["api-only"] } } : {}),
    },
    presetsDir: env.PRESETS_DIR ?? SHIPPED_PRESETS,
    alerts: {
      intervalMs: env.ALERT_INTERVAL_SECONDS * 1000,
      smtp: env.SMTP_URL && env.ALERT_EMAIL_FROM ? { url: env.SMTP_URL, from: env.ALERT_EMAIL_FROM } : undefined,
    },
    settings: {
      mode,
      publicUrl: env.PUBLIC_URL ?? `http://${env.HOST.includes(":") ? `[${env.HOST}]` : env.HOST}:${env.PORT}`,
      operatorCompanyId: env.OPERATOR_COMPANY_ID ?? null,
      trustedProxy:
        env.TRUSTED_PROXIES.length > 0 ? { ranges: env.TRUSTED_PROXIES, header: env.CLIENT_ADDRESS_HEADER } : null,
      sessionIdleMs: env.SESSION_IDLE_MINUTES * 60_000,
      webhookLoopbackPorts: loopbackWebhookPorts(env.HOST, env.WEBHOOK_LOOPBACK_PORTS),
      ...(loaded.config.intakeLimit ? { intakeLimit: loaded.config.intakeLimit } : {}),
      ...(loaded.config.retentionDays ? { retentionDays: loaded.config.retentionDays } : {}),
    },
  });
  // Several processes may start at once on one PostgreSQL database: they apply the config file one after the other
  // (under the startup lock), each finding what the one before it applied (applyConfig is idempotent; D-256).
  await gateway.exclusively(() => applyConfig({ ctx: gateway.ctx, loaded, env: secretEnvironment() }));
  // In the background: a blip of the database at start waits, it does not stop the gateway (D-330).
  const retention = scheduleRetention(gateway.ctx);

  const server = await listen(gateway.app, { host: env.HOST, port: env.PORT });
  const opsServer =
    gateway.opsApp && env.OPS_PORT !== undefined
      ? await listen(gateway.opsApp, { host: env.OPS_HOST, port: env.OPS_PORT })
      : undefined;
  if (opsServer) log.info({ url: opsServer.url }, "operations endpoints listening");
  else if (mode === "live" && !env.OPS_TOKEN) {
    log.warn("/metrics and readiness details are open on the public listener: set OPS_TOKEN or OPS_PORT");
  }
  if (sandbox) await linkEmbeddedSandbox({ ctx: gateway.ctx, sandbox, gatewayUrl: server.url, log });
  const driver = redis ? (values["api-only"] ? "bullmq (api only)" : "bullmq") : "embedded";
  log.info({ url: server.url, upstream: upstreamUrl ?? sandbox?.url, mode, forwarding: driver }, "gateway listening");
  writeBanner(banner({ url: server.url, sandbox, demo: configPath === undefined, source: loaded.source }));

  // SIGTERM: stop intake (requests in flight are answered), give in-flight upstream calls a deadline, release the rest
  // (they resume on restart), give webhook deliveries in flight what is left of it (D-383), then the embedded sandbox.
  onShutdown(log, async () => {
    retention.close();
    await server.close();
    await opsServer?.close();
    await gateway.close(10_000);
    await tracing?.shutdown();
    await sandbox?.close();
  });
}

/** Live mode refuses sandbox-only settings with a message naming each. */
function checkMode(mode: "sandbox" | "live", env: Env, loaded: LoadedConfig, demo: boolean): void {
  if (mode !== "live") return;
  const problems: string[] = [];
  if (demo) problems.push("--config: live mode needs a config file (the demo config is for sandbox mode)");
  if (!(loaded.config.upstreamUrl ?? env.UPSTREAM_URL)) problems.push("UPSTREAM_URL: required in live mode");
  const upstream = loaded.config.upstreamUrl ?? env.UPSTREAM_URL;
  if (upstream && !upstream.startsWith("https://")) problems.push("UPSTREAM_URL: must be https in live mode");
  if (env.SANDBOX_SEED) problems.push("SANDBOX_SEED: a sandbox-only setting");
  if (env.SANDBOX_ADMIN_TOKEN) problems.push("SANDBOX_ADMIN_TOKEN: a sandbox-only setting");
  if (problems.length > 0) throw new ConfigError(`invalid configuration for live mode:\n  ${problems.join("\n  ")}`);
  checkLiveConfig(loaded.config, loaded.source);
}

function startEmbeddedSandbox(env: Env, log: Logger): Promise<RunningSandbox> {
  return startSandbox({
    host: env.SANDBOX_HOST,
    port: env.SANDBOX_PORT,
    dbPath: env.SANDBOX_DB,
    seedPath: env.SANDBOX_SEED,
    adminToken: env.SANDBOX_ADMIN_TOKEN,
    // A binding of its own: a second `name` would repeat the key in every line (not valid for strict JSON readers).
    log: log.child({ component: "sandbox" }),
  });
}

function banner(input: { url: string; sandbox?: RunningSandbox; demo: boolean; source: string }): string {
  const lines = [
    `gateway listening on ${input.url}  (API docs: ${input.url}/docs)`,
    `owner console: ${input.url}/console`,
  ];
  if (input.sandbox) {
    lines.push(`embedded sandbox (the upstream) on ${input.sandbox.url}`);
    lines.push("sandbox test keys (public fixtures):");
    const width = Math.max(...input.sandbox.testKeys.map((k) => k.key.length));
    for (const k of input.sandbox.testKeys) {
      lines.push(`  ${k.name.padEnd(26)} ${k.key.padEnd(width)}  ${k.kind}${k.revoked ? " (revoked)" : ""}`);
    }
  }
  if (input.demo) {
    lines.push(
      "demo config (config/demo.yaml): owner owner@sunrise.test / sunrise-demo-password; vendor keys:",
      "  HomeQuote marketplace   svc_test_demohomequote01.demo_secret_homequote_000001",
      "  BookWise scheduler      svc_test_demobookwise001.demo_secret_bookwise_0000001",
      "  Canonical client        svc_test_democanonical01.demo_secret_canonical_000001",
      "try a native HomeQuote lead:",
      `  curl -s ${input.url}/api/inbound/leads -H 'content-type: application/json' \\`,
      "    -H 'x-api-key: svc_test_demohomequote01.demo_secret_homequote_000001' \\",
      "    -d @examples/homequote-lead.json",
      "or Angi's own lead, posted to its connection's hook URL as Angi posts it:",
      `  curl -s ${input.url}/hooks/hk_demoAngiLeadsSunriseSolar000000000000000001 -H 'content-type: application/json' \\`,
      "    -H 'x-api-key: demo-angi-api-key-000001' -d @examples/angi-lead.json",
    );
  } else {
    lines.push(`config: ${input.source}`);
  }
  return `${lines.join("\n")}\n`;
}
