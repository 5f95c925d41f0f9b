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

/** Opens the gateway's database and brings its schema up to date. */
export function openGatewayDb(path: string): GatewayDatabase {
  const sqlite = openSqlite(path);
  const db = drizzle(sqlite, { schema });
  applyMigrations(db, sqlite, "gateway");
  return { db, sqlite, close: () => sqlite.close() };
}

export { schema };
