import type pg from "pg";
import { PgTableCache } from "../../db/pg-table-cache.js";
import { outageCause } from "../outage/store-outage.js";
import type { Sql } from "./sql/database.js";
import { checkOut, postgresSql, postgresSqlOn } from "./sql/postgres.js";
import { storeSql } from "./sql/store-sql.js";
import {
  committed,
  type Stores,
  type StoreTransaction,
  sharedCaches,
  storesOn,
  type TransactionScope,
} from "./transaction.js";

/** The lock an `immediate` transaction takes at BEGIN, "pgwtx!" in ASCII: one per database, every process's (D-249). */
export const IMMEDIATE_LOCK_KEY = "123589688064033";

/**
 * The two-key lock spaces of scoped immediate transactions (`pg_advisory_xact_lock(int, hashtext(id))`): a company's
 * ("pgwc" in ASCII) and a credential's ("pgwk"), apart from the bigint keys (D-273).
 */
export const COMPANY_LOCK_CLASS = 0x70677763;
export const CREDENTIAL_LOCK_CLASS = 0x7067776b;

/**
 * The locks an immediate transaction takes right after BEGIN, by scope (D-249, D-273), from the widest down so that
 * no two wait on each other. Each nested subquery runs before the select around it.
 */
function immediateLocks(scope: TransactionScope | undefined): pg.QueryConfig {
  if (!scope)
    return {
      name: "immediate_transaction_lock",
      text: "SELECT pg_advisory_xact_lock($1::bigint)",
      values: [IMMEDIATE_LOCK_KEY],
    };
  if (scope.credentialId === undefined)
    return {
      name: "company_immediate_transaction_lock",
      text: `SELECT pg_advisory_xact_lock($2::int, hashtext($3))
               FROM (SELECT pg_advisory_xact_lock_shared($1::bigint)) AS database_first`,
      values: [IMMEDIATE_LOCK_KEY, COMPANY_LOCK_CLASS, scope.companyId],
    };
  return {
    name: "credential_immediate_transaction_lock",
    text: `SELECT pg_advisory_xact_lock($4::int, hashtext($5))
             FROM (SELECT pg_advisory_xact_lock_shared($2::int, hashtext($3))
                     FROM (SELECT pg_advisory_xact_lock_shared($1::bigint)) AS database_first) AS company_next`,
    values: [IMMEDIATE_LOCK_KEY, COMPANY_LOCK_CLASS, scope.companyId, CREDENTIAL_LOCK_CLASS, scope.credentialId],
  };
}

/** Where an immediate transaction of `scope` queues in the process (ImmediateQueue): one at a time per key. */
function queueKey(scope: TransactionScope | undefined): string {
  if (!scope) return "";
  return scope.credentialId === undefined ? `company:${scope.companyId}` : `credential:${scope.credentialId}`;
}

/**
 * The stores of one PostgreSQL pool and its transactions (D-223): a transaction on one checked-out client, `immediate`
 * taking its scope's advisory locks at BEGIN (D-249, D-273). `close()` stops the caches' timers, not the pool.
 */
export function postgresStorage(pool: pg.Pool): Stores & { transaction: StoreTransaction; close(): Promise<void> } {
  const shared = sharedCaches((table) => new PgTableCache(pool, table));
  // A store's own statements as one: a plain transaction, which locks the rows it reads where that matters.
  const stores = storesOn(
    storeSql(postgresSql(pool), "postgres", (work) => run((tx) => work(tx.sql), undefined)),
    shared,
  );
  const queue = new ImmediateQueue(Math.max(1, Math.floor((pool.options.max ?? 10) / 2)));

  const transaction: StoreTransaction = (work, mode = "deferred", scope) =>
    mode === "deferred" ? run(work, undefined) : queue.enter(queueKey(scope), () => run(work, immediateLocks(scope)));

  const run = async <T>(
    work: (tx: Stores & { sql: Sql }) => Promise<T>,
    locks: pg.QueryConfig | undefined,
  ): Promise<T> => {
    const client = await checkOut(pool);
    // A connection whose BEGIN or ROLLBACK failed is broken: the pool drops it rather than hand it out again.
    let broken = false;
    try {
      await client.query("BEGIN").catch((error: unknown) => {
        broken = true;
        throw error;
      });
      try {
        if (locks) await client.query(locks);
        const sql = postgresSqlOn(client);
        const tx = { ...storesOn(storeSql(sql, "postgres"), shared), sql };
        const result = await work(tx);
        await client.query("COMMIT");
        committed(tx);
        return result;
      } catch (error) {
        // The connection is gone or silent (D-335): a ROLLBACK would only wait behind what it never answered.
        if (connectionGone(error)) {
          broken = true;
          throw error;
        }
        // A failed COMMIT has ended the transaction already: ROLLBACK then only warns.
        await client.query("ROLLBACK").catch(() => {
          broken = true;
        });
        throw error;
      }
    } finally {
      client.release(broken);
    }
  };

  return {
    ...stores,
    transaction,
    async close() {
      shared.keys.close();
      shared.connections.close();
    },
  };
}

/** An error after which the transaction's connection cannot be used: lost, refused, or silent past the timeout. */
function connectionGone(error: unknown): boolean {
  const reason = outageCause(error)?.reason;
  return reason === "unreachable" || reason === "connection_lost" || reason === "restarting";
}

/**
 * Where this process's immediate transactions wait before they take a connection (D-249, D-273): one at a time per
 * lock key, and at most `holders` (half the pool) at once, so that a burst waiting on a lock never takes every
 * connection while the holder needs one more (a cache fill on the pool).
 */
class ImmediateQueue {
  readonly #tails = new Map<string, Promise<unknown>>();
  readonly #waiting: (() => void)[] = [];
  #holding = 0;

  constructor(private readonly holders: number) {}

  enter<T>(key: string, run: () => Promise<T>): Promise<T> {
    const result = (this.#tails.get(key) ?? Promise.resolve()).then(async () => {
      await this.#slot();
      try {
        return await run();
      } finally {
        this.#release();
      }
    });
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  async #slot(): Promise<void> {
    if (this.#holding < this.holders) {
      this.#holding++;
      return;
    }
    // Handed over by #release with the count unchanged.
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#holding--;
  }
}
