import { ConfigError } from "../../config.js";
import { startCheckpointer } from "../../db/checkpointer.js";
import { type GatewayDatabase, openGatewayDb } from "../../db/client.js";
import {
  EMBEDDED_FORWARDER_LOCK_KEY,
  type GatewayPostgres,
  type HeldLock,
  openPostgres,
  type PostgresOptions,
  tryHoldLock,
  withStartupLock,
} from "../../db/postgres.js";
import { checkSqliteRoom } from "../../db/sqlite-room.js";
import type { Logger } from "../../log.js";
import { postgresStorage } from "./postgres.js";
import { type Stores, type StoreTransaction, sqliteStorage } from "./transaction.js";

/** Where the gateway's state lives: a SQLite file (DATABASE_PATH), or PostgreSQL (DATABASE_URL) when a URL is given. */
export type StorageLocation =
  | { databasePath: string; databaseUrl?: undefined }
  | {
      databaseUrl: string;
      /** PG_POOL_MAX and PG_STATEMENT_TIMEOUT_MS (db/postgres.ts has the defaults). */
      postgres?: Pick<PostgresOptions, "poolMax" | "statementTimeoutMs">;
    };

/** The dialect's own handles: for the process that opened them (CLI tools, tests, benchmarks), never the context's. */
export type StorageHandles =
  | { dialect: "sqlite"; database: GatewayDatabase }
  | { dialect: "postgres"; database: GatewayPostgres };

/** The stores the context carries (D-223), on whichever database was asked for (D-255), and the storage as a whole. */
export interface OpenedStorage extends Stores {
  transaction: StoreTransaction;
  /** Resolves when the database answers and, on SQLite, its file can take writes (readiness, D-333). */
  ping(): Promise<void>;
  /**
   * Runs `fn` while no other gateway process on this database runs its own `exclusively` work or migrations: under the
   * startup lock on PostgreSQL (D-227, D-256); at once on SQLite, where only `serve` applies the config file.
   */
  exclusively<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * The embedded forwarding driver's claim: on PostgreSQL a second one is refused (a ConfigError naming REDIS_URL)
   * until the first releases or dies (D-256), and lost while its connection is (the forwarder sends nothing, D-336).
   */
  claimEmbeddedForwarding(): Promise<HeldLock>;
  readonly handles: StorageHandles;
  /** Stops the checkpointer or the caches' timers, then closes the database (the pool ends). */
  close(): Promise<void>;
}

/** SQLite's claim: one file, one process that forwards; never lost. */
const ALWAYS_HELD: HeldLock = {
  held: true,
  onChange: () => undefined,
  release: async () => undefined,
};

/** Opens (and migrates) the gateway's database: PostgreSQL when `databaseUrl` is set, else the SQLite file. */
export async function openStorage(location: StorageLocation, log: Logger): Promise<OpenedStorage> {
  if (location.databaseUrl !== undefined) {
    const database = await openPostgres(location.databaseUrl, {
      ...location.postgres,
      onIdleError: (error) => log.warn({ err: error }, "postgres: an idle connection broke (the pool opens another)"),
    });
    const storage = postgresStorage(database.pool);
    return {
      ...storage,
      handles: { dialect: "postgres", database },
      async ping() {
        await database.pool.query("select 1");
      },
      exclusively: (fn) => withStartupLock(database, () => fn()),
      async claimEmbeddedForwarding() {
        const held = await tryHoldLock(database, EMBEDDED_FORWARDER_LOCK_KEY);
        if (held) return held;
        throw new ConfigError(
          "forwarding: another gateway process runs the embedded forwarding driver on this PostgreSQL database; " +
            "it runs in one process only — set REDIS_URL (the BullMQ driver) to forward from several",
        );
      },
      async close() {
        await storage.close();
        await database.close();
      },
    };
  }
  const database = openGatewayDb(location.databasePath);
  const checkpointer = startCheckpointer(database.sqlite, { log });
  return {
    ...sqliteStorage(database),
    handles: { dialect: "sqlite", database },
    async ping() {
      database.sqlite.prepare("select 1").get();
      // A full disk or a read-only file answers reads: readiness looks at whether a write could go (D-333).
      checkSqliteRoom(location.databasePath);
    },
    exclusively: (fn) => fn(),
    claimEmbeddedForwarding: async () => ALWAYS_HELD,
    async close() {
      await checkpointer?.close();
      database.close();
    },
  };
}
