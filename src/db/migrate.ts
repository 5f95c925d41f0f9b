import { fileURLToPath } from "node:url";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";

/** The generated migrations live at the project root (`migrations/<schema>`), for `src/` and `dist/` alike. */
export function migrationsFolder(schema: "gateway" | "sandbox"): string {
  return fileURLToPath(new URL(`../../migrations/${schema}`, import.meta.url));
}

/**
 * Several processes may open one database file at once (the BullMQ driver's API and worker processes). The migrator
 * reads what is applied before it takes the write lock, so the slower of two racing processes re-runs a migration
 * the other has just committed and fails (in its own transaction, which rolls back whole); trying again, it finds
 * everything applied. A migration that is really broken fails every time and is thrown.
 */
// biome-ignore lint/suspicious/noExplicitAny: drizzle's migrator accepts a database of any schema.
export function applyMigrations(db: BetterSQLite3Database<any>, schema: "gateway" | "sandbox"): void {
  for (let attempt = 1; ; attempt++) {
    try {
      migrate(db, { migrationsFolder: migrationsFolder(schema) });
      return;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}
