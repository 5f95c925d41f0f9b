import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { openPostgres } from "../../src/db/postgres.js";

/**
 * The machine's PostgreSQL (trust auth): tests never touch its existing databases, each file makes one of its own
 * (`pgw_<random>`) and drops it afterwards.
 */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * Whether the PostgreSQL tests can run. Under `CI=true` an unreachable PostgreSQL is a failure, never a skip; on a
 * machine without one they skip, saying why.
 */
export async function postgresAvailable(url = POSTGRES_ADMIN_URL): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch (error) {
    const message = `PostgreSQL is unreachable at ${url} (${(error as Error).message}; start it, or set TEST_POSTGRES_URL)`;
    if (process.env.CI === "true") throw new Error(`${message}: under CI=true the PostgreSQL tests must run`);
    console.warn(`skipping the PostgreSQL tests: ${message}`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface TestPostgresDatabase {
  /** The database's URL; read it inside a test or hook (it exists from `beforeAll` on). */
  readonly url: string;
  readonly name: string;
}

/**
 * Registers hooks in the calling `describe` (or file): before all, a database named `pgw_<random>` is created and
 * (unless `migrate: false`) migrated; after all, it is dropped `WITH (FORCE)`, whatever connections a test left open.
 * Call it behind `postgresAvailable()` (`describe.skipIf(!available)`).
 */
export function usePostgresDatabase(options: { migrate?: boolean } = {}): TestPostgresDatabase {
  const name = `pgw_${randomBytes(6).toString("hex")}`;
  const target = new URL(POSTGRES_ADMIN_URL);
  target.pathname = `/${name}`;
  let created = false;

  beforeAll(async () => {
    await admin((client) => client.query(`CREATE DATABASE ${name}`));
    created = true;
    if (options.migrate !== false) {
      const database = await openPostgres(target.toString(), { poolMax: 1 });
      await database.close();
    }
  });

  afterAll(async () => {
    await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });

  return {
    name,
    get url() {
      if (!created) throw new Error("the test database exists from beforeAll on");
      return target.toString();
    },
  };
}

/** Runs `fn` on a connection of its own to the server's admin database (CREATE and DROP DATABASE), then closes it. */
export async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
