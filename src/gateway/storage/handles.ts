import type { GatewayDb } from "../../db/client.js";
import type { SqliteDatabase } from "../../db/sqlite.js";

/**
 * The database handles a record's storage module works on: drizzle for most statements, the SQLite connection for
 * prepared hot-path statements and transactions. Only storage modules (src/gateway/storage/) receive them.
 */
export interface StorageHandles {
  db: GatewayDb;
  sqlite: SqliteDatabase;
}
