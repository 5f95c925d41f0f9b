import { drizzle } from "drizzle-orm/better-sqlite3";
import { applyMigrations } from "./migrate.js";
import { openSqlite, type SqliteDatabase } from "./sqlite.js";

/** The gateway's SQLite database: its connection, which the storage's query builder runs on (D-275). */
export interface GatewayDatabase {
  sqlite: SqliteDatabase;
  close(): void;
}

/**
 * Opens the gateway's database and brings its schema up to date (drizzle-kit's migrations, applied by drizzle's
 * migrator). `secure_delete`: content deleted or overwritten is overwritten with zeros in its page, so a person's
 * erased data does not linger in free space of the file (an erasure then also empties the WAL; docs/decisions.md,
 * "Erasure of every copy").
 */
export function openGatewayDb(path: string): GatewayDatabase {
  const sqlite = openSqlite(path);
  sqlite.pragma("secure_delete = ON");
  applyMigrations(drizzle(sqlite), sqlite, "gateway");
  return { sqlite, close: () => sqlite.close() };
}
