import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { applyMigrations } from "./migrate.js";
import * as schema from "./schema/index.js";
import { openSqlite, type SqliteDatabase } from "./sqlite.js";

export type GatewayDb = BetterSQLite3Database<typeof schema>;

export interface GatewayDatabase {
  db: GatewayDb;
  sqlite: SqliteDatabase;
  close(): void;
}

/**
 * Opens the gateway's database and brings its schema up to date. `secure_delete`: content deleted or overwritten is
 * overwritten with zeros in its page, so a person's erased data does not linger in free space of the file (an
 * erasure then also empties the WAL; docs/decisions.md, "Erasure of every copy").
 */
export function openGatewayDb(path: string): GatewayDatabase {
  const sqlite = openSqlite(path);
  sqlite.pragma("secure_delete = ON");
  const db = drizzle(sqlite, { schema });
  applyMigrations(db, sqlite, "gateway");
  return { db, sqlite, close: () => sqlite.close() };
}

export { schema };
