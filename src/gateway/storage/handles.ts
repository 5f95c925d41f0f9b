import type { GatewayDb } from "../../db/client.js";
import type { SqliteDatabase } from "../../db/sqlite.js";
import type { GateView } from "./sqlite-gate.js";

/**
 * The database handles a record's SQLite storage module works on: drizzle for most statements, the SQLite connection
 * for prepared hot-path statements and transactions, and the gate its calls wait at while an asynchronous transaction
 * holds the connection (sqlite-gate.ts; `INSIDE` for the stores bound to that transaction). Only storage modules
 * (src/gateway/storage/) receive them.
 */
export interface StorageHandles {
  db: GatewayDb;
  sqlite: SqliteDatabase;
  gate: GateView;
}
