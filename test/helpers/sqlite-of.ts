import type { GatewayDatabase } from "../../src/db/client.js";
import type { StorageHandles } from "../../src/gateway/storage/open-storage.js";

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
