import { getTableColumns } from "drizzle-orm";
import * as schema from "../../../db/schema/index.js";
import * as pgSchema from "../../../db/schema-pg.js";
import type { Database } from "./database.js";

/**
 * The columns whose SQLite value is not the row's: JSON text (an object in the row) and 0/1 (a boolean). PostgreSQL
 * reads both back as the row's own (json, boolean). Keyed by the column's name, which the schema gives one type
 * wherever it occurs (checked here, at load): a row from any table, or from a join, converts the same.
 */
function conversions(): { json: Set<string>; booleans: Set<string> } {
  const typeOf = new Map<string, string>();
  const converted = (type: string | undefined) => type === "SQLiteTextJson" || type === "SQLiteBoolean";
  for (const table of Object.values(schema)) {
    for (const { name, columnType } of Object.values(getTableColumns(table))) {
      const seen = typeOf.get(name);
      if (seen !== undefined && seen !== columnType && (converted(seen) || converted(columnType))) {
        throw new Error(`schema: the column ${name} has two types; a converted column's name must have one`);
      }
      typeOf.set(name, columnType);
    }
  }
  const named = (type: string) => new Set([...typeOf].filter(([, t]) => t === type).map(([name]) => name));
  return { json: named("SQLiteTextJson"), booleans: named("SQLiteBoolean") };
}

const { json: JSON_COLUMNS, booleans: BOOLEAN_COLUMNS } = conversions();

/** A SQLite row (column names as the statement returned them) as the schema's row: JSON parsed, 0/1 as booleans. */
export function fromSqliteRow(row: Record<string, unknown>): Record<string, unknown> {
  for (const key in row) {
    const value = row[key];
    if (value === null || value === undefined) continue;
    if (JSON_COLUMNS.has(key) && typeof value === "string") row[key] = JSON.parse(value);
    else if (BOOLEAN_COLUMNS.has(key) && typeof value === "number") row[key] = value !== 0;
  }
  return row;
}

/**
 * A parameter as the driver binds it: an object or an array is a JSON column's value (`in` lists are one parameter per
 * item), sent as JSON text on both dialects (node-postgres would write a PostgreSQL array); a boolean is 0/1 on SQLite.
 */
export function toSqliteParameter(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "object" && value !== null && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return value;
}

export function toPostgresParameter(value: unknown): unknown {
  if (typeof value === "object" && value !== null && !Buffer.isBuffer(value) && !(value instanceof Date)) {
    return JSON.stringify(value);
  }
  return value;
}

const TABLES = { ...schema };
const PG_TABLES = { ...pgSchema };

/** A table's columns as the stores name them, in the schema's order: every column of a whole row. */
export function columnsOf<T extends keyof typeof TABLES>(table: T): (keyof Database[T] & string)[] {
  return Object.keys(getTableColumns(TABLES[table])) as (keyof Database[T] & string)[];
}

/**
 * A column's type as PostgreSQL declares it (db/schema-pg.ts, derived from the one schema): what a parameter is cast
 * to, or a JSON record's field read as, where PostgreSQL cannot tell it from the statement.
 */
export function pgTypeOf(table: keyof typeof PG_TABLES, column: string): string {
  const type = getTableColumns(PG_TABLES[table])[column]?.getSQLType();
  if (type === undefined) throw new Error(`schema: ${table} has no column ${column}`);
  return type;
}
