#!/usr/bin/env node
import { ConfigError } from "./config.js";

/** CLI entry: `partner-gateway <command> [options]`. Commands load lazily so each starts only what it needs. */
const commands: Record<string, { summary: string; load: () => Promise<{ run(argv: string[]): Promise<void> }> }> = {
  serve: {
    summary: "run the gateway (and the embedded sandbox in sandbox mode)",
    load: () => import("./cli/serve.js"),
  },
  worker: {
    summary: "run forwarding workers only (BullMQ driver, REDIS_URL)",
    load: () => import("./cli/worker.js"),
  },
  sandbox: { summary: "run the sandbox Inbound API alone", load: () => import("./cli/sandbox.js") },
  migrate: { summary: "apply the gateway's database migrations and exit", load: () => import("./cli/migrate.js") },
  profile: {
    summary: "test or preview mapping profiles (profile test|preview)",
    load: () => import("./cli/profile.js"),
  },
  connections: {
    summary: "a running gateway's hook connections (connections list|create|rotate|revoke)",
    load: () => import("./cli/connections.js"),
  },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`);
  return `usage: partner-gateway <command> [options]\n\ncommands:\n${lines.join("\n")}\n`;
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(usage());
    return;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`unknown command: ${name}\n\n${usage()}`);
    process.exitCode = 2;
    return;
  }
  await (await command.load()).run(rest);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`partner-gateway: ${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  process.stderr.write(`partner-gateway: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
