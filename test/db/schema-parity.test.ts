import { type Column, getTableName, is, SQL } from "drizzle-orm";
import { type PgTable, getTableConfig as pgTableConfig } from "drizzle-orm/pg-core";
import { type SQLiteTable, getTableConfig as sqliteTableConfig } from "drizzle-orm/sqlite-core";
import { describe, expect, expectTypeOf, it } from "vitest";
import * as sqliteTables from "../../src/db/schema/index.js";
import * as pgTables from "../../src/db/schema-pg/index.js";

/**
 * The gateway's two schemas describe one database (docs/decisions.md, D-226): the same tables, columns, keys and
 * indexes, and rows of the same TypeScript types, so a store's PostgreSQL implementation returns what its SQLite one
 * does. Compared through drizzle's own table configs, not the migrations' SQL.
 */

/** The text of an index predicate (`sql\`status = 'pending'\``), whitespace collapsed. */
function predicate(where: SQL | undefined): string | null {
  if (where === undefined) return null;
  const text = where.queryChunks
    .map((chunk) => {
      if (is(chunk, SQL)) return predicate(chunk) ?? "";
      const value = (chunk as { value?: unknown }).value;
      if (Array.isArray(value)) return value.join("");
      throw new Error(`an index predicate holds something other than text: ${String(chunk)}`);
    })
    .join("");
  return text.replace(/\s+/g, " ").trim();
}

function columnName(column: unknown): string {
  if (typeof column === "object" && column !== null && "name" in column) return String(column.name);
  throw new Error("an index on an expression (not compared)");
}

type Described = {
  columns: Record<
    string,
    {
      notNull: boolean;
      primary: boolean;
      hasDefault: boolean;
      default: unknown;
      dataType: string;
      enumValues: string[] | undefined;
    }
  >;
  primaryKeys: string[][];
  foreignKeys: string[];
  indexes: Record<string, { columns: string[]; unique: boolean; where: string | null }>;
};

function describeColumns(columns: Column[]): Described["columns"] {
  return Object.fromEntries(
    columns.map((column) => [
      column.name,
      {
        notNull: column.notNull,
        primary: column.primary,
        hasDefault: column.hasDefault,
        default: column.default,
        // drizzle's abstract type: string, number, boolean, json — what a row carries, whatever the SQL type.
        // epochMs, the schema's custom type, is a number in both (db/schema/epoch-ms.ts).
        dataType: column.dataType === "custom" ? "number" : column.dataType,
        enumValues: column.enumValues,
      },
    ]),
  );
}

function describeSqlite(table: SQLiteTable): Described {
  const config = sqliteTableConfig(table);
  return {
    columns: describeColumns(config.columns),
    primaryKeys: config.primaryKeys.map((key) => key.columns.map((column) => column.name)),
    foreignKeys: config.foreignKeys
      .map((key) => {
        const reference = key.reference();
        return `${reference.columns.map((c) => c.name).join(",")} -> ${getTableName(reference.foreignTable)}(${reference.foreignColumns.map((c) => c.name).join(",")}) on delete ${key.onDelete ?? "no action"}`;
      })
      .sort(),
    indexes: Object.fromEntries(
      config.indexes.map((index) => [
        index.config.name,
        {
          columns: index.config.columns.map(columnName),
          unique: index.config.unique,
          where: predicate(index.config.where),
        },
      ]),
    ),
  };
}

function describePg(table: PgTable): Described {
  const config = pgTableConfig(table);
  return {
    columns: describeColumns(config.columns),
    primaryKeys: config.primaryKeys.map((key) => key.columns.map((column) => column.name)),
    foreignKeys: config.foreignKeys
      .map((key) => {
        const reference = key.reference();
        return `${reference.columns.map((c) => c.name).join(",")} -> ${getTableName(reference.foreignTable)}(${reference.foreignColumns.map((c) => c.name).join(",")}) on delete ${key.onDelete ?? "no action"}`;
      })
      .sort(),
    indexes: Object.fromEntries(
      config.indexes.map((index) => [
        index.config.name,
        {
          columns: index.config.columns.map(columnName),
          unique: index.config.unique,
          where: predicate(index.config.where),
        },
      ]),
    ),
  };
}

const sqliteByName = new Map(Object.values(sqliteTables).map((table) => [getTableName(table), table]));
/**
 * Tables only PostgreSQL has, and why: `table_versions` holds the counters its triggers bump so that every process's
 * cache learns of another's change (D-247); SQLite reads `PRAGMA data_version` instead.
 */
const PG_ONLY = new Set(["table_versions"]);
const PG_ONLY_EXPORTS = ["tableVersions"];
const pgByName = new Map(
  Object.values(pgTables)
    .map((table) => [getTableName(table), table] as const)
    .filter(([name]) => !PG_ONLY.has(name)),
);

describe("the PostgreSQL schema mirrors the SQLite one (docs/decisions.md, D-226)", () => {
  it("has the same tables under the same export names", () => {
    expect([...pgByName.keys()].sort()).toEqual([...sqliteByName.keys()].sort());
    expect(Object.keys(pgTables).sort()).toEqual([...Object.keys(sqliteTables), ...PG_ONLY_EXPORTS].sort());
    expect(sqliteByName.size).toBeGreaterThan(0);
  });

  it.each([...sqliteByName.keys()].sort())("%s: columns, keys and indexes", (name) => {
    const sqlite = sqliteByName.get(name);
    const pg = pgByName.get(name);
    if (!sqlite || !pg) throw new Error(`table ${name} is missing from one schema`);
    const expected = describeSqlite(sqlite);
    const actual = describePg(pg);
    expect(actual.columns).toEqual(expected.columns);
    expect(actual.primaryKeys).toEqual(expected.primaryKeys);
    expect(actual.foreignKeys).toEqual(expected.foreignKeys);
    expect(actual.indexes).toEqual(expected.indexes);
  });

  it("tells a difference apart (positive control: a column made nullable, an index predicate changed)", () => {
    const expected = describeSqlite(sqliteTables.webhookDeliveries);
    const changed = structuredClone(describePg(pgTables.webhookDeliveries));
    const status = changed.columns.status;
    const pending = changed.indexes.webhook_deliveries_pending_subscription_next_idx;
    if (!status || !pending) throw new Error("the control's column or index is gone");
    status.notNull = false;
    expect(changed.columns).not.toEqual(expected.columns);
    pending.where = "status = 'failed'";
    expect(changed.indexes).not.toEqual(expected.indexes);
  });

  it("gives rows of the same TypeScript types (checked by the type checker)", () => {
    expectTypeOf<typeof pgTables.bookedAppointments.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.bookedAppointments.$inferSelect
    >();
    expectTypeOf<typeof pgTables.bookedAppointments.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.bookedAppointments.$inferInsert
    >();
    expectTypeOf<typeof pgTables.companies.$inferSelect>().toEqualTypeOf<typeof sqliteTables.companies.$inferSelect>();
    expectTypeOf<typeof pgTables.companies.$inferInsert>().toEqualTypeOf<typeof sqliteTables.companies.$inferInsert>();
    expectTypeOf<typeof pgTables.mappingFailures.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.mappingFailures.$inferSelect
    >();
    expectTypeOf<typeof pgTables.mappingFailures.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.mappingFailures.$inferInsert
    >();
    expectTypeOf<typeof pgTables.ownerTokens.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.ownerTokens.$inferSelect
    >();
    expectTypeOf<typeof pgTables.ownerTokens.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.ownerTokens.$inferInsert
    >();
    expectTypeOf<typeof pgTables.owners.$inferSelect>().toEqualTypeOf<typeof sqliteTables.owners.$inferSelect>();
    expectTypeOf<typeof pgTables.owners.$inferInsert>().toEqualTypeOf<typeof sqliteTables.owners.$inferInsert>();
    expectTypeOf<typeof pgTables.platformDeliveries.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.platformDeliveries.$inferSelect
    >();
    expectTypeOf<typeof pgTables.platformDeliveries.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.platformDeliveries.$inferInsert
    >();
    expectTypeOf<typeof pgTables.platformEvents.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.platformEvents.$inferSelect
    >();
    expectTypeOf<typeof pgTables.platformEvents.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.platformEvents.$inferInsert
    >();
    expectTypeOf<typeof pgTables.platformWebhookSecrets.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.platformWebhookSecrets.$inferSelect
    >();
    expectTypeOf<typeof pgTables.platformWebhookSecrets.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.platformWebhookSecrets.$inferInsert
    >();
    expectTypeOf<typeof pgTables.profileVersions.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.profileVersions.$inferSelect
    >();
    expectTypeOf<typeof pgTables.profileVersions.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.profileVersions.$inferInsert
    >();
    expectTypeOf<typeof pgTables.profiles.$inferSelect>().toEqualTypeOf<typeof sqliteTables.profiles.$inferSelect>();
    expectTypeOf<typeof pgTables.profiles.$inferInsert>().toEqualTypeOf<typeof sqliteTables.profiles.$inferInsert>();
    expectTypeOf<typeof pgTables.sourcedLeads.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.sourcedLeads.$inferSelect
    >();
    expectTypeOf<typeof pgTables.sourcedLeads.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.sourcedLeads.$inferInsert
    >();
    expectTypeOf<typeof pgTables.submissionAttempts.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.submissionAttempts.$inferSelect
    >();
    expectTypeOf<typeof pgTables.submissionAttempts.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.submissionAttempts.$inferInsert
    >();
    expectTypeOf<typeof pgTables.submissions.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.submissions.$inferSelect
    >();
    expectTypeOf<typeof pgTables.submissions.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.submissions.$inferInsert
    >();
    expectTypeOf<typeof pgTables.upstreamCredentials.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.upstreamCredentials.$inferSelect
    >();
    expectTypeOf<typeof pgTables.upstreamCredentials.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.upstreamCredentials.$inferInsert
    >();
    expectTypeOf<typeof pgTables.vendorKeys.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.vendorKeys.$inferSelect
    >();
    expectTypeOf<typeof pgTables.vendorKeys.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.vendorKeys.$inferInsert
    >();
    expectTypeOf<typeof pgTables.webhookAttempts.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.webhookAttempts.$inferSelect
    >();
    expectTypeOf<typeof pgTables.webhookAttempts.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.webhookAttempts.$inferInsert
    >();
    expectTypeOf<typeof pgTables.webhookDeliveries.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.webhookDeliveries.$inferSelect
    >();
    expectTypeOf<typeof pgTables.webhookDeliveries.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.webhookDeliveries.$inferInsert
    >();
    expectTypeOf<typeof pgTables.webhookEvents.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.webhookEvents.$inferSelect
    >();
    expectTypeOf<typeof pgTables.webhookEvents.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.webhookEvents.$inferInsert
    >();
    expectTypeOf<typeof pgTables.webhookSubscriptions.$inferSelect>().toEqualTypeOf<
      typeof sqliteTables.webhookSubscriptions.$inferSelect
    >();
    expectTypeOf<typeof pgTables.webhookSubscriptions.$inferInsert>().toEqualTypeOf<
      typeof sqliteTables.webhookSubscriptions.$inferInsert
    >();
  });
});
