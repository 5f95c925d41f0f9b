import { createHash, randomBytes } from "node:crypto";
import { admin, POSTGRES_ADMIN_URL } from "./postgres.js";

/**
 * Which store the gateway fixtures build on: SQLite by default, PostgreSQL under `TEST_STORE=postgres` (the
 * `postgres` vitest project, test/postgres-setup.ts). On PostgreSQL each SQLite path a fixture would use maps to a
 * database of its own — the same path to the same database, so a restart test reopens what it wrote, also from a
 * child process — created from the run's migrated template and dropped when the run ends.
 */
export const TEST_STORE: "sqlite" | "postgres" = process.env.TEST_STORE === "postgres" ? "postgres" : "sqlite";

/** The run's id (set by the global setup): every database of the run is named `pgw_r<run>_…`. */
export function testRun(): string {
  const run = process.env.PGW_TEST_RUN;
  if (!run) throw new Error("TEST_STORE=postgres needs the postgres project's global setup (test/postgres-setup.ts)");
  return run;
}

export const templateName = (run: string) => `pgw_tmpl_${run}`;
export const databasePrefix = (run: string) => `pgw_r${run}_`;

/** Where a fixture's gateway keeps its state: `databasePath` as given on SQLite, its own database on PostgreSQL. */
export async function testStorage(databasePath: string): Promise<{ databasePath: string; databaseUrl?: string }> {
  if (TEST_STORE === "sqlite") return { databasePath };
  const run = testRun();
  // `:memory:` is a new database each time it is opened; a file path is the same one each time.
  const key = databasePath === ":memory:" ? randomBytes(8).toString("hex") : digest(databasePath);
  const name = `${databasePrefix(run)}${key}`;
  await createFromTemplate(name, templateName(run));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return { databasePath, databaseUrl: url.toString() };
}

function digest(path: string): string {
  return createHash("sha256").update(path).digest("hex").slice(0, 16);
}

/** CREATE DATABASE … TEMPLATE: a copy of the migrated template, in milliseconds. Already there: kept (a restart). */
async function createFromTemplate(name: string, template: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "42P04") return; // duplicate_database: this path's database exists
      // object_in_use: another CREATE copying the template at this instant; copies are short. A backoff with jitter,
      // not a wait on a state: PostgreSQL says nothing when the template is free (and this module also runs in the
      // crash test's child processes, outside vitest).
      if (code === "55006" && attempt < 50) {
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
        continue;
      }
      throw error;
    }
  }
}
