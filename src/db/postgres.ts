import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { migrationsFolder } from "./migrate.js";

/**
 * The gateway's state on PostgreSQL (DATABASE_URL; docs/decisions.md, "PostgreSQL"): node-postgres with a pool
 * (D-225), the schema of `schema-pg.ts` (derived from the one schema: D-226, D-275), migrations and the config file applied by one process at a time under
 * an advisory lock (D-227). The stores query it through the one typed query builder (D-275).
 */

export interface PostgresOptions {
  /** Connections of the pool (PG_POOL_MAX). */
  poolMax?: number;
  /** A statement running longer is cancelled by the server (PG_STATEMENT_TIMEOUT_MS); 0: no limit. */
  statementTimeoutMs?: number;
  /** Bring the schema up to date before returning (default true); `false` for a caller that migrates itself. */
  migrate?: boolean;
  /**
   * An idle connection of the pool broke (the server restarted, a proxy cut it). The pool drops it and the next query
   * opens another; without a listener node-postgres would end the process.
   */
  onIdleError?: (error: Error) => void;
}

export interface GatewayPostgres {
  pool: pg.Pool;
  /** How the startup lock's own connection is opened: the pool's settings without its statement timeout. */
  readonly lockConnection: pg.ClientConfig;
  close(): Promise<void>;
}

/** Shown in `pg_stat_activity`, so an operator tells the gateway's connections apart. */
const APPLICATION_NAME = "partner-gateway";

/**
 * The key of the startup lock (`pg_advisory_lock`): "pgway!" in ASCII. One per database, shared by every gateway
 * process of a deployment, whatever its role.
 */
const STARTUP_LOCK_KEY = "123589686819105";

/** Opens a pool on `url` (postgres:// or postgresql://) and, unless told not to, migrates under the startup lock. */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<GatewayPostgres> {
  const { poolMax = 10, statementTimeoutMs = 30_000 } = options;
  // Opening a connection that takes longer fails the query that needed it.
  const connection = { connectionString: url, application_name: APPLICATION_NAME, connectionTimeoutMillis: 10_000 };
  const pool = new pg.Pool({
    ...connection,
    max: poolMax,
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
  });
  pool.on("error", (error) => options.onIdleError?.(error));
  let closed: Promise<void> | undefined;
  const opened: GatewayPostgres = {
    pool,
    lockConnection: { ...connection, application_name: `${APPLICATION_NAME} startup` },
    // Idempotent: a shutdown path and a failed start may both close it.
    close: () => {
      closed ??= pool.end();
      return closed;
    },
  };
  if (options.migrate !== false) {
    try {
      await migratePostgres(opened);
    } catch (error) {
      await opened.close();
      throw error;
    }
  }
  return opened;
}

/**
 * Runs `fn` while this process holds the startup lock, a session-level advisory lock on a connection of its own
 * (outside the pool, so `fn` may use every pooled connection). Processes that start together wait for one another
 * here; the lock is released when `fn` settles, or by the server if this process dies. The lock's connection has no
 * statement timeout: waiting behind another process's migrations is not a stuck statement, and a migration that
 * builds an index on a large table may take long. It is passed to `fn`, which may run statements on it.
 */
export async function withStartupLock<T>(
  database: Pick<GatewayPostgres, "lockConnection">,
  fn: (lock: pg.ClientBase) => Promise<T>,
): Promise<T> {
  const client = await lockClient(database);
  try {
    await client.query("SELECT pg_advisory_lock($1::bigint)", [STARTUP_LOCK_KEY]);
    try {
      return await fn(client);
    } finally {
      await client.query("SELECT pg_advisory_unlock($1::bigint)", [STARTUP_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The key of the embedded forwarder's lock: "pgfwd!" in ASCII. The embedded driver keeps its queue in this process's
 * memory, so one process per database runs it (D-256).
 */
export const EMBEDDED_FORWARDER_LOCK_KEY = "123589403042849";

/**
 * Takes the session-level advisory lock `key` on a connection of its own, held until `release` (or this process's
 * death: the server releases a dead session's locks). Undefined, at once, when another session holds it.
 */
export async function tryHoldLock(
  database: Pick<GatewayPostgres, "lockConnection">,
  key: string,
): Promise<{ release(): Promise<void> } | undefined> {
  const client = await lockClient(database);
  try {
    const taken = await client.query<{ taken: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS taken", [key]);
    if (taken.rows[0]?.taken !== true) {
      await client.end().catch(() => undefined);
      return undefined;
    }
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  let released: Promise<void> | undefined;
  return {
    // Ending the session releases its locks.
    release: () => {
      released ??= client.end().catch(() => undefined);
      return released;
    },
  };
}

/** A connection of its own for a session-level lock, outside the pool. */
async function lockClient(database: Pick<GatewayPostgres, "lockConnection">): Promise<pg.Client> {
  const client = new pg.Client(database.lockConnection);
  // A broken lock connection fails the statement running on it; the event alone must not end the process.
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

/**
 * Applies the migrations of `migrations/gateway-pg` under the startup lock: drizzle's migrator reads what is applied
 * before it writes, so two processes migrating at once would both apply the same migration; under the lock the second
 * finds everything applied and does nothing.
 */
export async function migratePostgres(database: Pick<GatewayPostgres, "lockConnection">): Promise<void> {
  // drizzle accepts a Pool, a Client or a PoolClient; ClientBase is what the lock's client is typed as.
  await withStartupLock(database, (lock) =>
    migrate(drizzle(lock as pg.Client), { migrationsFolder: migrationsFolder("gateway-pg") }),
  );
}
