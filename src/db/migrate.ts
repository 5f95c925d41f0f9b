import { fileURLToPath } from "node:url";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import type { SqliteDatabase } from "./sqlite.js";

/** The generated migrations at the project root (`migrations/<schema>`), for `src/` and `dist/` alike (D-226). */
export function migrationsFolder(schema: "gateway" | "sandbox" | "gateway-pg"): string {
  return fileURLToPath(new URL(`../../migrations/${schema}`, import.meta.url));
}

/**
 * Foreign keys are off while the migrations run, then checked: a migration that rebuilds a table drops one other rows
 * reference, and drizzle-kit's `PRAGMA foreign_keys=OFF` does nothing inside the migrator's transaction (SQLite's
 * documented procedure). Tried up to three times: the migrator reads what is applied before it takes the write lock,
 * so the slower of two processes starting at once re-runs the other's migration, fails and rolls back whole.
 */
export function applyMigrations(
  // biome-ignore lint/suspicious/noExplicitAny: drizzle's migrator accepts a database of any schema.
  db: BetterSQLite3Database<any>,
  sqlite: SqliteDatabase,
  schema: "gateway" | "sandbox",
): void {
  const enforced = sqlite.pragma("foreign_keys", { simple: true }) === 1;
  sqlite.pragma("foreign_keys = OFF");
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        migrate(db, { migrationsFolder: migrationsFolder(schema) });
        break;
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
  } finally {
    if (enforced) sqlite.pragma("foreign_keys = ON");
  }
  const violations = sqlite.pragma("foreign_key_check") as { table: string; parent: string }[];
  if (violations.length > 0) {
    const first = violations[0] as { table: string; parent: string };
    throw new Error(
      `${violations.length} rows break a foreign key after the ${schema} migrations (first: ${first.table} → ${first.parent})`,
    );
  }
}
