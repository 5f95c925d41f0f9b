import type { SqliteDatabase } from "../../db/sqlite.js";
import { SqliteTableCache, type TableCache } from "../../db/table-cache.js";
import type { Logger } from "../../log.js";
import { sqlAlertStore } from "./alerts/index.js";
import { sqlCaptureStore } from "./captures/index.js";
import { type ConnectionRow, type ConnectionStore, SqlConnectionStore } from "./connections/index.js";
import { sqlUpstreamCredentialStore } from "./credentials/index.js";
import { sqlProfileStore, VersionCache } from "./profiles/index.js";
import { sqliteSql } from "./sql/sqlite.js";
import { type StoreSql, storeSql } from "./sql/store-sql.js";
import { SqliteGate } from "./sqlite-gate.js";
import { sqlSubmissionStore } from "./submissions/index.js";
import { sqlTenantStore } from "./tenants/index.js";
import { sqlVendorKeyStore, type VendorKeyRow, type VendorKeyStore } from "./vendor-keys/index.js";
import { sqlWebhookStore } from "./webhooks/index.js";

/**
 * Every record's store (D-223): the context's, or the same stores bound to one open transaction; what only the storage
 * calls (the caches' `afterCommit`) left out.
 */
export type Stores = Omit<ReturnType<typeof storesOn>, "vendorKeys" | "connections"> & {
  vendorKeys: VendorKeyStore;
  connections: ConnectionStore;
};

/**
 * One transaction across records' storage modules (D-222, D-223, D-275): what `work` does through `tx`, the stores
 * bound to it, commits together or not at all. `immediate` takes the write lock first, for work that reads before it
 * writes; its `scope` (what the work touches) orders it on PostgreSQL only with those it overlaps (D-273). The
 * storage's own: the context's `transaction` hands the work a TransactionContext instead.
 */
export type StoreTransaction = TransactionOf<Stores>;

/**
 * What work inside a transaction receives (D-275, D-371): the stores bound to the transaction and the services that
 * touch no store, never the context's own stores (they would wait for the transaction) nor what runs. A function that
 * runs inside a transaction takes this, so reaching a store outside it, or calling it outside one, does not compile.
 */
export interface TransactionContext extends Stores {
  log: Logger;
  now: () => Date;
  /** Made by a transaction only (GatewayContext.transaction). */
  readonly [IN_TRANSACTION]: true;
}

/** The mark of a TransactionContext: only the context's transaction puts it on what it hands its work. */
export const IN_TRANSACTION: unique symbol = Symbol("in transaction");

/** The context's transaction (GatewayContext.transaction): a StoreTransaction whose work gets a TransactionContext. */
export type Transaction = TransactionOf<TransactionContext>;

type TransactionOf<Tx> = <T>(
  work: (tx: Tx) => Promise<T>,
  mode?: "deferred" | "immediate",
  scope?: TransactionScope,
) => Promise<T>;

/** What an immediate transaction's work reads and writes: a company's rows, or one credential's outcome (D-273). */
export interface TransactionScope {
  companyId: string;
  credentialId?: string;
}

/** What every store of a process shares: its caches (the stores bound to its transactions use them too). */
export interface SharedCaches {
  keys: TableCache<VendorKeyRow>;
  versions: VersionCache;
  /** Connections by their hook token's digest. */
  connections: TableCache<ConnectionRow>;
}

/** A process's caches, each cached table's made by `cacheOf` (the dialect's TableCache). */
export function sharedCaches(cacheOf: <T extends object>(table: string) => TableCache<T>): SharedCaches {
  return { keys: cacheOf("vendor_keys"), versions: new VersionCache(), connections: cacheOf("connections") };
}

/** Every record's store on `sql`, the same on both databases (D-275): the context's, or one transaction's (no I/O). */
export function storesOn(sql: StoreSql, shared: SharedCaches) {
  return {
    submissions: sqlSubmissionStore(sql),
    vendorKeys: sqlVendorKeyStore(sql, shared.keys),
    tenants: sqlTenantStore(sql),
    credentials: sqlUpstreamCredentialStore(sql),
    profiles: sqlProfileStore(sql, shared.versions),
    connections: new SqlConnectionStore(sql, shared.connections),
    webhooks: sqlWebhookStore(sql),
    alerts: sqlAlertStore(sql),
    captures: sqlCaptureStore(sql),
  };
}

/** How long an immediate transaction waits for another connection's write lock: the connection's busy timeout. */
const WRITE_LOCK_PATIENCE_MS = 5_000;

/**
 * BEGIN, or BEGIN IMMEDIATE (the write lock first), another process's write lock waited for between tries, never in
 * better-sqlite3's busy handler, which would stop the event loop meanwhile (D-275).
 */
async function begin(sqlite: SqliteDatabase, mode: "deferred" | "immediate"): Promise<void> {
  if (mode === "deferred") {
    sqlite.exec("BEGIN");
    return;
  }
  const deadline = Date.now() + WRITE_LOCK_PATIENCE_MS;
  sqlite.pragma("busy_timeout = 0");
  try {
    for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
      try {
        sqlite.exec("BEGIN IMMEDIATE");
        return;
      } catch (error) {
        if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() >= deadline) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  } finally {
    sqlite.pragma(`busy_timeout = ${WRITE_LOCK_PATIENCE_MS}`);
  }
}

/** The stores of one SQLite connection and its transactions, as the context carries them. */
export function sqliteStorage({ sqlite }: { sqlite: SqliteDatabase }): Stores & { transaction: StoreTransaction } {
  const gate = new SqliteGate();
  const { inside, outside } = sqliteSql(sqlite, gate);
  // Across awaits: BEGIN … COMMIT run by hand while the gate is held (D-222).
  const inTransaction = <T>(work: () => Promise<T>, mode: "deferred" | "immediate" = "deferred"): Promise<T> =>
    gate.hold(async () => {
      await begin(sqlite, mode);
      try {
        const result = await work();
        sqlite.exec("COMMIT");
        return result;
      } catch (error) {
        // A failed COMMIT (SQLITE_BUSY) leaves the transaction open: it is rolled back like a throw of `work`.
        if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
        throw error;
      }
    });
  const shared = sharedCaches((table) => new SqliteTableCache(sqlite, table));
  const tx = storesOn(storeSql(inside, "sqlite"), shared);
  return {
    ...storesOn(
      storeSql(outside, "sqlite", (work, mode) => inTransaction(() => work(inside), mode)),
      shared,
    ),
    transaction: async (work, mode) => {
      const result = await inTransaction(() => work(tx), mode);
      committed(tx);
      return result;
    },
  };
}

/** A transaction of `tx` committed: its writes to a cached table hold in this process's caches from now on. */
export function committed(tx: ReturnType<typeof storesOn>): void {
  tx.vendorKeys.afterCommit();
  tx.connections.afterCommit();
}
