import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * The benches' PostgreSQL (BENCH_POSTGRES_URL, default the local server, trust auth): each run makes a scratch database
 * of its own (`pgw_bench_<random>`) and drops it afterwards, never touching the server's other databases.
 */
export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Why PostgreSQL cannot be used (unreachable), or undefined when it answers. */
export async function postgresUnreachable(url = BENCH_POSTGRES_URL): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("select 1");
    return undefined;
  } catch (error) {
    return `PostgreSQL is unreachable at ${url} (${(error as Error).message}; start it, or set BENCH_POSTGRES_URL)`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates a scratch database; `drop()` removes it `WITH (FORCE)`, whatever connections are left. */
export async function scratchDatabase(url = BENCH_POSTGRES_URL): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `pgw_bench_${randomBytes(6).toString("hex")}`;
  await admin(url, `CREATE DATABASE ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  return { url: target.toString(), drop: () => admin(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
