import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { applyMigrations } from "../../db/migrate.js";
import { openSqlite, type SqliteDatabase } from "../../db/sqlite.js";
import * as schema from "./schema/index.js";

export type SandboxDb = BetterSQLite3Database<typeof schema>;

/** A transaction handle; verbs that write several rows take one so the rows commit together. */
export type SandboxTx = Parameters<Parameters<SandboxDb["transaction"]>[0]>[0];

/** Where a storage function may run: inside the caller's transaction or on its own. */
export type SandboxQuery = SandboxDb | SandboxTx;

export interface SandboxDatabase {
  db: SandboxDb;
  sqlite: SqliteDatabase;
}

/** Opens the sandbox's own database (`:memory:` by default, or a file that survives restarts) and migrates it. */
export function openSandboxDb(path: string): SandboxDatabase {
  const sqlite = openSqlite(path);
  const db = drizzle(sqlite, { schema });
  applyMigrations(db, sqlite, "sandbox");
  return { db, sqlite };
}
