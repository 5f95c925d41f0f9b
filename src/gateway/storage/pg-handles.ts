import { drizzle } from "drizzle-orm/node-postgres";
import type pg from "pg";
import type { GatewayPgDb } from "../../db/postgres.js";
import * as schema from "../../db/schema-pg/index.js";
import { checkOut } from "./sql/postgres.js";

/** A connection statements run on: the pool (each statement on any free connection) or one checked-out client. */
export type PgQueryable = pg.Pool | pg.PoolClient;

/**
 * What a record's PostgreSQL storage module works on (D-221): drizzle and raw `query` on `client` — the pool outside
 * a transaction, the transaction's own client inside one (the stores of `tx` in `ctx.transaction`). Only storage
 * modules (src/gateway/storage/) receive them.
 */
export interface PgHandles {
  /** drizzle on `client`. */
  db: GatewayPgDb;
  /** Where this store's statements run. */
  client: PgQueryable;
  /** The pool: a store's own multi-statement work checks a client out of it when not inside a transaction. */
  pool: pg.Pool;
  /** Bound to an open transaction: a store's own multi-statement work then runs inline in it. */
  inTransaction: boolean;
}

/** The handles of the pool, outside any transaction. */
export function poolHandles(pool: pg.Pool): PgHandles {
  return { db: drizzle(pool, { schema }), client: pool, pool, inTransaction: false };
}

/**
 * drizzle on each pooled client, made once per client: building it walks the whole schema (its relational config),
 * which cost a send's outcome transaction a fifth of a millisecond of CPU when done per transaction. A client lives as
 * long as the pool keeps its connection; the entry goes with it.
 */
const clientDbs = new WeakMap<pg.PoolClient, GatewayPgDb>();

/** Prepared statements built on each drizzle instance, by their builder (preparedOn). */
const preparedByDb = new WeakMap<GatewayPgDb, Map<(db: GatewayPgDb) => unknown, unknown>>();

/**
 * The statement `build` prepares on `db`, built once per drizzle instance (the pool's, or a pooled client's, which lives
 * as long as its connection) however many stores ask for it: a store bound to a transaction is made per transaction,
 * and building the statement there cost every send's outcome CPU for the same query each time.
 */
export function preparedOn<T>(db: GatewayPgDb, build: (db: GatewayPgDb) => T): T {
  let prepared = preparedByDb.get(db);
  if (!prepared) {
    prepared = new Map();
    preparedByDb.set(db, prepared);
  }
  let statement = prepared.get(build) as T | undefined;
  if (statement === undefined) {
    statement = build(db);
    prepared.set(build, statement);
  }
  return statement;
}

/** The handles of one transaction's client. */
export function transactionHandles(pool: pg.Pool, client: pg.PoolClient): PgHandles {
  let db = clientDbs.get(client);
  if (!db) {
    db = drizzle(client, { schema });
    clientDbs.set(client, db);
  }
  return { db, client, pool, inTransaction: true };
}

/**
 * A store's own multi-statement work in one transaction: inline when `handles` already belong to an open transaction
 * (the caller's commits it), else on a client of its own between BEGIN and COMMIT (ROLLBACK on a throw). `work`
 * receives the handles to run on.
 */
export async function pgTransaction<T>(
  handles: PgHandles,
  work: (inside: PgHandles) => Promise<T>,
  begin = "BEGIN",
): Promise<T> {
  if (handles.inTransaction) return work(handles);
  const client = await checkOut(handles.pool);
  let broken = false;
  try {
    await client.query(begin);
    try {
      const result = await work(transactionHandles(handles.pool, client));
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      throw error;
    }
  } finally {
    client.release(broken);
  }
}
