import { parseEnv } from "../config.js";
import { openGatewayDb } from "../db/client.js";

/** `partner-gateway migrate`: brings the gateway's database (DATABASE_PATH) up to date and exits. */
export async function run(_argv: string[]): Promise<void> {
  const env = parseEnv();
  const database = openGatewayDb(env.DATABASE_PATH);
  database.close();
  process.stdout.write(`gateway database ${env.DATABASE_PATH} is up to date\n`);
}
