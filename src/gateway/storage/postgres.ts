import type pg from "pg";
import { PgTableCache } from "../../db/pg-table-cache.js";
import { PostgresUpstreamCredentialStore } from "./credentials/postgres.js";
import { type PgHandles, poolHandles, transactionHandles } from "./pg-handles.js";
import { PgVersionCache } from "./profiles/pg-version-cache.js";
import { PostgresProfileStore } from "./profiles/postgres.js";
import { PostgresSubmissionStore } from "./submissions/postgres/store.js";
import { PostgresTenantStore } from "./tenants/postgres.js";
import type { Stores, Transaction } from "./transaction.js";
import type { VendorKeyRow } from "./vendor-keys/index.js";
import { PostgresVendorKeyStore } from "./vendor-keys/postgres.js";
import { PostgresWebhookStore } from "./webhooks/postgres/store.js";

/**
 * The key of the lock an `immediate` transaction takes at BEGIN (`pg_advisory_xact_lock`): "pgwtx!" in ASCII, beside
 * the startup lock's "pgway!" (db/postgres.ts). One per database, shared by every gateway process (D-249).
 */
export const IMMEDIATE_LOCK_KEY = "123589688064033";

/** What every store of a process shares: the caches, one per process (the stores of a transaction use them too). */
interface Shared {
  keys: PgTableCache<VendorKeyRow>;
  versions: PgVersionCache;
}

/** The PostgreSQL stores on `handles`: the pool's, or one transaction's (built per transaction: no I/O). */
function postgresStores(handles: PgHandles, shared: Shared): Stores & { vendorKeys: PostgresVendorKeyStore } {
  return {
    submissions: new PostgresSubmissionStore(handles),
    vendorKeys: new PostgresVendorKeyStore(handles, shared.keys),
    tenants: new PostgresTenantStore(handles),
    credentials: new PostgresUpstreamCredentialStore(handles),
    profiles: new PostgresProfileStore(handles, shared.versions),
    webhooks: new PostgresWebhookStore(handles),
  };
}

/**
 * The stores of one PostgreSQL pool and its transactions, as the context carries them (D-223): the context's stores
 * run each statement on any free connection of the pool; `transaction(work, mode)` checks a client out, runs BEGIN,
 * hands `work` the stores bound to that client, and COMMITs (ROLLBACK when `work` or the COMMIT throws) before
 * releasing it. `immediate` (work that reads before it writes while other processes may write: the outcome of a send,
 * a settlement) also takes a transaction-scoped advisory lock at BEGIN, so immediate transactions of every process run
 * one at a time, as SQLite's BEGIN IMMEDIATE runs them (docs/decisions.md, D-249). `close()` stops the caches' timers
 * and closes the stores that hold resources of their own; the pool stays the caller's to end.
 */
export function postgresStorage(pool: pg.Pool): Stores & { transaction: Transaction; close(): Promise<void> } {
  const shared: Shared = { keys: new PgTableCache(pool, "vendor_keys"), versions: new PgVersionCache() };
  const stores = postgresStores(poolHandles(pool), shared);

  // Immediate transactions of this process queue here, before taking a connection: else a burst of them holds every
  // pooled connection waiting on the advisory lock while the one holding it needs another (a cache fill on the pool)
  // and waits for ever (D-249).
  let immediateTail: Promise<unknown> = Promise.resolve();
  const transaction: Transaction = <T>(
    work: (tx: Stores) => Promise<T>,
    mode: "deferred" | "immediate" = "deferred",
  ): Promise<T> => {
    if (mode === "deferred") return run(work, mode);
    const result = immediateTail.then(() => run(work, mode));
    immediateTail = result.catch(() => undefined);
    return result;
  };

  const run = async <T>(work: (tx: Stores) => Promise<T>, mode: "deferred" | "immediate"): Promise<T> => {
    const client = await pool.connect();
    // A connection whose BEGIN or ROLLBACK failed is broken: the pool drops it rather than hand it out again.
    let broken = false;
    try {
      await client.query("BEGIN").catch((error: unknown) => {
        broken = true;
        throw error;
      });
      try {
        if (mode === "immediate") {
          await client.query({
            name: "immediate_transaction_lock",
            text: "SELECT pg_advisory_xact_lock($1::bigint)",
            values: [IMMEDIATE_LOCK_KEY],
          });
        }
        const tx = postgresStores(transactionHandles(pool, client), shared);
        const result = await work(tx);
        await client.query("COMMIT");
        tx.vendorKeys.afterCommit();
        return result;
      } catch (error) {
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
      await Promise.all(Object.values(stores).map(closeStore));
    },
  };
}

/** A store holding resources of its own (a timer, a writer on the pool) has a `close`; the others have none. */
async function closeStore(store: object): Promise<void> {
  if ("close" in store && typeof store.close === "function") await store.close();
}
