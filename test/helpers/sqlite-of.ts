import type { GatewayDatabase } from "../../src/db/client.js";
import type { StorageHandles } from "../../src/gateway/storage/open-storage.js";
import type { Sql } from "../../src/gateway/storage/sql/database.js";
import { sqliteSql } from "../../src/gateway/storage/sql/sqlite.js";
import { SqliteGate } from "../../src/gateway/storage/sqlite-gate.js";

/**
 * The SQLite handles of a gateway (or worker) a test opened, for a test that reads or breaks the SQLite file itself
 * (the capabilities never see them: D-255). Throws on PostgreSQL: such a test belongs to the SQLite store only.
 */
export function sqliteOf(opened: { database: StorageHandles }): GatewayDatabase {
  if (opened.database.dialect !== "sqlite") {
    throw new Error("this test reads the SQLite file directly: it runs on the SQLite store only");
  }
  return opened.database.database;
}

/**
 * The storage's query builder on that SQLite file (D-275), reading rows as the stores read them (JSON parsed, 0/1 as
 * booleans). Its gate is its own, not the gateway's, so a statement of it may run inside a transaction the gateway has
 * open on the connection: for reading what the gateway committed, and for fixtures written while it is idle.
 */
export function sqlOf(opened: { database: StorageHandles }): Sql {
  return sqliteSql(sqliteOf(opened).sqlite, new SqliteGate()).outside;
}
