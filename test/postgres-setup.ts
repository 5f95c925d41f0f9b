import { randomBytes } from "node:crypto";
import { openPostgres } from "../src/db/postgres.js";
import { admin, postgresAvailable } from "./helpers/postgres.js";
import { databasePrefix, templateName } from "./helpers/test-store.js";

/**
 * The PostgreSQL projects' global setup (vitest.config.ts): one migrated template database for the run, which every
 * fixture's database is copied from (test/helpers/test-store.ts); at the end, the template and every database of the
 * run are dropped, whatever a test left open.
 */
export default async function setup(): Promise<() => Promise<void>> {
  // Both PostgreSQL projects (the files run two at a time, and those run alone) share the run's template: the second
  // project's setup finds it made.
  const made = process.env.PGW_TEST_RUN;
  if (made && (await templateExists(templateName(made)))) return async () => undefined;
  // Under CI=true an unreachable PostgreSQL throws here: the run fails rather than skipping.
  if (!(await postgresAvailable())) throw new Error("PostgreSQL is unreachable (vitest.config.ts should have skipped)");
  const run = `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
  process.env.PGW_TEST_RUN = run;
  const template = templateName(run);
  await admin((client) => client.query(`CREATE DATABASE ${template}`));
  const url = new URL(process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
  url.pathname = `/${template}`;
  const database = await openPostgres(url.toString(), { poolMax: 1 });
  await database.close();
  return async () => {
    await admin(async (client) => {
      const { rows } = await client.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2",
        [`${databasePrefix(run)}%`, template],
      );
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    });
  };
}

async function templateExists(name: string): Promise<boolean> {
  const { rows } = await admin((client) => client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]));
  return rows.length > 0;
}
