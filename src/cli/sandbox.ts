import { parseArgs } from "node:util";
import { z } from "zod";
import { ConfigError, parseEnv } from "../config.js";
import { type RunningSandbox, startSandbox } from "../sandbox/index.js";
import { onShutdown } from "./shutdown.js";
import { commandLogger, writeBanner } from "./terminal.js";

const USAGE = `usage: partner-gateway sandbox [--host H] [--port N] [--seed FILE] [--db FILE]

Runs the sandbox Inbound API alone (spec §1 test environment). Defaults come from SANDBOX_HOST, SANDBOX_PORT,
SANDBOX_SEED and SANDBOX_DB; state is in memory unless --db names a file. The admin API takes the bearer token in
SANDBOX_ADMIN_TOKEN. See docs/sandbox.md.
`;

const portSchema = z.coerce.number().int().min(0).max(65535);

/** The banner: where the sandbox listens and its public `svc_test_` fixture keys. No other secret is printed. */
function banner(sandbox: RunningSandbox, adminTokenFromEnv: boolean): string {
  const nameWidth = Math.max(...sandbox.testKeys.map((k) => k.name.length));
  const keyWidth = Math.max(...sandbox.testKeys.map((k) => k.key.length));
  const keys = sandbox.testKeys.map(
    (k) =>
      `  ${k.name.padEnd(nameWidth)}  ${k.key.padEnd(keyWidth)}  ${k.kind}${k.revoked ? " (revoked)" : ""}: ${k.scopes.join(" ")}`,
  );
  const admin = adminTokenFromEnv
    ? "admin API: /sandbox/admin/* with the bearer token from SANDBOX_ADMIN_TOKEN"
    : "admin API: /sandbox/admin/* — set SANDBOX_ADMIN_TOKEN to use it (this run's random token is not shown)";
  return [
    `sandbox (Inbound API, Installer API v1, webhooks) listening on ${sandbox.url}`,
    admin,
    "test keys (public fixtures):",
    ...keys,
    "",
  ].join("\n");
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      seed: { type: "string" },
      db: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const env = parseEnv();
  const port = values.port === undefined ? env.SANDBOX_PORT : portSchema.safeParse(values.port).data;
  if (port === undefined) throw new ConfigError(`invalid configuration:\n  --port: must be an integer from 0 to 65535`);

  const log = commandLogger(env, "sandbox");
  const sandbox = await startSandbox({
    host: values.host ?? env.SANDBOX_HOST,
    port,
    dbPath: values.db ?? env.SANDBOX_DB,
    seedPath: values.seed ?? env.SANDBOX_SEED,
    adminToken: env.SANDBOX_ADMIN_TOKEN,
    log,
  });
  writeBanner(banner(sandbox, env.SANDBOX_ADMIN_TOKEN !== undefined));

  onShutdown(log, () => sandbox.close());
}
