import { readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { getTableName, isTable, type Table } from "drizzle-orm";
import * as schema from "../../src/db/schema/index.js";

/** Finds where source files touch the gateway's tables: imports of their drizzle definitions, and SQL naming them. */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const SRC = join(ROOT, "src");
const SCHEMA_DIR = join(SRC, "db/schema");

/** The gateway's schema: export name → SQL table name. */
export const TABLE_OF_EXPORT = new Map(
  Object.entries(schema)
    .filter(([, table]) => isTable(table))
    .map(([name, table]) => [name, getTableName(table as Table)]),
);

export interface Touch {
  file: string;
  table: string;
  how: "import" | "sql";
}

/** Every import of a gateway table definition in `source` (a file at `file`, relative to the repository). */
export function importedTables(file: string, source: string): Touch[] {
  const touches: Touch[] = [];
  const imports = /import\s+(type\s+)?\{([^}]*)\}\s+from\s+"([^"]+)"/g;
  for (const match of source.matchAll(imports)) {
    const specifier = match[3] ?? "";
    if (!specifier.startsWith(".")) continue;
    const target = resolve(ROOT, dirname(file), specifier);
    if (!target.startsWith(SCHEMA_DIR)) continue;
    for (const part of (match[2] ?? "").split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0];
      const table = name ? TABLE_OF_EXPORT.get(name) : undefined;
      if (table) touches.push({ file, table, how: "import" });
    }
  }
  return touches;
}

/**
 * Every statement in `source` that names one of `tables` in SQL text (from, join, into, update) or to the query
 * builder (storage/sql, D-275: `selectFrom("submissionAttempts")`, the table's name in camelCase), or to one of the
 * statements shared by the records (`rowOfCompany(db, "vendorKeys", …)`).
 */
export function sqlTables(file: string, source: string, tables: readonly string[]): Touch[] {
  const touches: Touch[] = [];
  for (const table of tables) {
    const statement = new RegExp(`\\b(from|join|into|update|exists)\\s+"?${table}\\b(?!\\.)`, "i");
    const camel = table.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    const built = new RegExp(
      `\\b(selectFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin)\\(\\s*"${camel}\\b`,
    );
    const shared = new RegExp(`\\brows?OfCompany\\([^,()]*,\\s*"${camel}"`);
    if (statement.test(source) || built.test(source) || shared.test(source)) touches.push({ file, table, how: "sql" });
  }
  return touches;
}

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(ROOT, path)] : [];
  });
}
