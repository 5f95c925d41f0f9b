import { drizzle } from "drizzle-orm/better-sqlite3";
import { applyMigrations } from "./migrate.js";
import { openSqlite, type SqliteDatabase } from "./sqlite.js";

/** The gateway's SQLite database: its connection, which the storage's query builder runs on (D-275). */
export interface GatewayDatabase {
  sqlite: SqliteDatabase;
  close(): void;
}

/**
 * Opens the gateway's database and migrates it. `secure_delete`: what is deleted or overwritten is zeroed in its page,
 * so erased data does not linger in the file's free space (D-241).
 */
export function openGatewayDb(path: string): GatewayDatabase {
  const sqlite = openSqlite(path);
  sqlite.pragma("secure_delete = ON");
  applyMigrations(drizzle(sqlite), sqlite, "gateway");
  return { sqlite, close: () => sqlite.close() };
}
