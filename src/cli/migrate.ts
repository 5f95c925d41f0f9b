import { parseEnv } from "../config.js";
import { openGatewayDb } from "../db/client.js";
import { openPostgres } from "../db/postgres.js";

/**
 * `partner-gateway migrate`: brings the gateway's database up to date and exits — PostgreSQL when DATABASE_URL is set
 * (under the startup lock, so it may run beside starting gateways; docs/decisions.md, D-227), else the SQLite file at
 * DATABASE_PATH.
 */
export async function run(_argv: string[]): Promise<void> {
  const env = parseEnv();
  if (env.DATABASE_URL !== undefined) {
    const database = await openPostgres(env.DATABASE_URL, {
      poolMax: 1,
      statementTimeoutMs: env.PG_STATEMENT_TIMEOUT_MS,
    });
    await database.close();
    process.stdout.write(`gateway database ${redacted(env.DATABASE_URL)} is up to date\n`);
    return;
  }
  const database = openGatewayDb(env.DATABASE_PATH);
  database.close();
  process.stdout.write(`gateway database ${env.DATABASE_PATH} is up to date\n`);
}

/** The URL without its password, for output. */
function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}
