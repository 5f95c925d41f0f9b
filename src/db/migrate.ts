import { fileURLToPath } from "node:url";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";

/** The generated migrations live at the project root (`migrations/<schema>`), for `src/` and `dist/` alike. */
export function migrationsFolder(schema: "gateway" | "sandbox"): string {
  return fileURLToPath(new URL(`../../migrations/${schema}`, import.meta.url));
}

// biome-ignore lint/suspicious/noExplicitAny: drizzle's migrator accepts a database of any schema.
export function applyMigrations(db: BetterSQLite3Database<any>, schema: "gateway" | "sandbox"): void {
  migrate(db, { migrationsFolder: migrationsFolder(schema) });
}
