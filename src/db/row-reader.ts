import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { SqliteDatabase } from "./sqlite.js";

/** Column types whose driver value is already the row value (a string or a number). */
const PLAIN = new Set(["SQLiteText", "SQLiteInteger", "SQLiteReal"]);

/**
 * One row by primary key through a plain prepared statement, shaped exactly like drizzle's `select()` row.
 *
 * For lookups on the intake hot path: drizzle's query builder spends about 25 µs per row mapping it column by column
 * through its generic machinery; this reads the row with SQL aliases and converts only the columns that need it (JSON,
 * booleans, timestamps), with drizzle's own column mappers.
 */
export function rowReader<T extends SQLiteTable>(
  sqlite: SqliteDatabase,
  table: T,
): (id: string) => T["$inferSelect"] | undefined {
  const columns = Object.entries(getTableColumns(table));
  const select = columns.map(([key, column]) => `"${column.name}" as "${key}"`).join(", ");
  const mapped = columns.filter(([, column]) => !PLAIN.has(column.columnType));
  const primary = columns.find(([, column]) => column.primary);
  if (!primary) throw new Error(`${getTableName(table)} has no single-column primary key`);
  const statement = sqlite.prepare(`select ${select} from "${getTableName(table)}" where "${primary[1].name}" = ?`);
  return (id) => {
    const row = statement.get(id) as Record<string, unknown> | undefined;
    if (!row) return undefined;
    for (const [key, column] of mapped) {
      const value = row[key];
      if (value !== null && value !== undefined) row[key] = column.mapFromDriverValue(value);
    }
    return row as T["$inferSelect"];
  };
}
