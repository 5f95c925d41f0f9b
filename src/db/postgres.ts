import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { migrationsFolder } from "./migrate.js";

export interface PostgresOptions {
  /** Connections of the pool (PG_POOL_MAX). */
  poolMax?: number;
  /** A statement running longer is cancelled by the server (PG_STATEMENT_TIMEOUT_MS); 0: no limit. */
  statementTimeoutMs?: number;
  /**
   * How long the client waits for a statement's answer (node-postgres's `query_timeout`: the server's timeout cannot
   * end a statement it never received, D-335). By default the statement timeout and 5 s more, or 60 s without one.
   */
  queryTimeoutMs?: number;
  /** Bring the schema up to date before returning (default true); `false` for a caller that migrates itself. */
  migrate?: boolean;
  /** An idle pool connection broke (the pool opens another); without a listener node-postgres ends the process. */
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

/** The key of the startup lock (`pg_advisory_lock`): "pgway!" in ASCII, shared by every process of a deployment. */
const STARTUP_LOCK_KEY = "123589686819105";

/**
 * The gateway's state on PostgreSQL (DATABASE_URL): a node-postgres pool on `url` (D-225) and, unless told not to, the
 * schema of `schema-pg.ts` (D-226, D-275) migrated under the startup lock (D-227).
 */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<GatewayPostgres> {
  const { poolMax = 10, statementTimeoutMs = 30_000 } = options;
  const connection: pg.ClientConfig = {
    connectionString: url,
    application_name: APPLICATION_NAME,
    // Opening a connection that takes longer fails the query that needed it.
    connectionTimeoutMillis: 10_000,
    // A connection whose peer vanished without a word (a partition, a host that died) is noticed by TCP (D-335).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
  const queryTimeoutMs = options.queryTimeoutMs ?? (statementTimeoutMs > 0 ? statementTimeoutMs + 5_000 : 60_000);
  const pool = new pg.Pool({
    ...connection,
    max: poolMax,
    query_timeout: queryTimeoutMs,
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
 * Runs `fn` (given the lock's connection) holding the startup lock (D-227), on a connection outside the pool (`fn` may
 * use every pooled one) and without a statement timeout: waiting behind another's migrations is not a stuck statement.
 */
export async function withStartupLock<T>(
  database: Pick<GatewayPostgres, "lockConnection">,
  fn: (lock: pg.ClientBase) => Promise<T>,
): Promise<T> {
  const client = await connected(database.lockConnection);
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

/** The embedded forwarder's lock, "pgfwd!" in ASCII: its queue is in one process's memory, one per database (D-256). */
export const EMBEDDED_FORWARDER_LOCK_KEY = "123589403042849";

/** A session-level advisory lock this process took, which it may lose with its connection and take back. */
export interface HeldLock {
  /** Whether this process holds it now: false from the moment its connection broke until it is taken back. */
  readonly held: boolean;
  /** `listener` hears every change of `held`. */
  onChange(listener: (held: boolean) => void): void;
  /** Gives it up (ending its session) and stops taking it back. */
  release(): Promise<void>;
}

/** How often a held lock's connection is asked whether it is alive, and how long its answer may take. */
const LOCK_CHECK_MS = 2_000;

/**
 * Takes the session-level advisory lock `key` on a connection of its own, held until `release` or this process's death;
 * undefined at once when another session holds it. The lock lives as long as its session (D-336): the connection's
 * error or end, or a `SELECT 1` every `checkMs` that fails or goes unanswered, makes `held` false, and the lock is
 * taken back on a new connection once the server answers and nobody else took it.
 */
export async function tryHoldLock(
  database: Pick<GatewayPostgres, "lockConnection">,
  key: string,
  options: { checkMs?: number } = {},
): Promise<HeldLock | undefined> {
  const checkMs = options.checkMs ?? LOCK_CHECK_MS;
  const config: pg.ClientConfig = { ...database.lockConnection, query_timeout: checkMs, keepAlive: true };
  const first = await lockSession(config, key);
  if (!first) return undefined;
  let client: pg.Client | undefined = first;
  let held = true;
  let released = false;
  let timer: NodeJS.Timeout | undefined;
  let retakeMs = 100;
  const listeners: ((held: boolean) => void)[] = [];
  const change = (now: boolean) => {
    if (held === now) return;
    held = now;
    for (const listener of listeners) listener(now);
  };
  const schedule = (ms: number, step: () => Promise<void>) => {
    clearTimeout(timer);
    if (released) return;
    timer = setTimeout(() => void step(), ms);
    timer.unref();
  };
  const lost = (session: pg.Client) => {
    if (released || session !== client) return;
    client = undefined;
    change(false);
    // Not awaited: on a silent connection the goodbye itself would wait.
    session.end().catch(() => undefined);
    retakeMs = 100;
    schedule(retakeMs, retake);
  };
  const watch = (session: pg.Client) => {
    session.on("error", () => lost(session));
    session.on("end", () => lost(session));
  };
  const check = async () => {
    const session = client;
    if (!session) return;
    try {
      await session.query("SELECT 1");
      schedule(checkMs, check);
    } catch {
      lost(session);
    }
  };
  const retake = async () => {
    try {
      const session = await lockSession(config, key);
      if (released) {
        await session?.end().catch(() => undefined);
        return;
      }
      if (session) {
        client = session;
        watch(session);
        change(true);
        schedule(checkMs, check);
        return;
      }
    } catch {
      // The server is still away: tried again after a longer wait.
    }
    retakeMs = Math.min(retakeMs * 2, checkMs);
    schedule(retakeMs, retake);
  };
  watch(first);
  schedule(checkMs, check);
  let releasing: Promise<void> | undefined;
  return {
    get held() {
      return held;
    },
    onChange(listener) {
      listeners.push(listener);
    },
    // Ending the session releases its locks.
    release: () => {
      releasing ??= (async () => {
        released = true;
        clearTimeout(timer);
        const session = client;
        client = undefined;
        await session?.end().catch(() => undefined);
      })();
      return releasing;
    },
  };
}

/** A connection of its own for a session-level lock, outside the pool. */
async function connected(config: pg.ClientConfig): Promise<pg.Client> {
  const client = new pg.Client(config);
  // A broken lock connection fails the statement running on it; the event alone must not end the process.
  client.on("error", () => undefined);
  await client.connect().catch((error: unknown) => {
    client.end().catch(() => undefined);
    throw error;
  });
  return client;
}

/** A new session holding `key`, or undefined (the session ended) when another holds it. */
async function lockSession(config: pg.ClientConfig, key: string): Promise<pg.Client | undefined> {
  const client = await connected(config);
  try {
    const taken = await client.query<{ taken: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS taken", [key]);
    if (taken.rows[0]?.taken === true) return client;
  } catch (error) {
    client.end().catch(() => undefined);
    throw error;
  }
  await client.end().catch(() => undefined);
  return undefined;
}

/**
 * Applies the migrations of `migrations/gateway-pg` under the startup lock: drizzle's migrator reads what is applied
 * before it writes, so two processes at once would both apply one; under the lock the second finds it applied.
 */
export async function migratePostgres(database: Pick<GatewayPostgres, "lockConnection">): Promise<void> {
  // drizzle accepts a Pool, a Client or a PoolClient; ClientBase is what the lock's client is typed as.
  await withStartupLock(database, (lock) =>
    migrate(drizzle(lock as pg.Client), { migrationsFolder: migrationsFolder("gateway-pg") }),
  );
}
