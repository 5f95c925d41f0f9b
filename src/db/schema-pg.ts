import { getTableName, is, SQL } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  foreignKey,
  index,
  integer,
  json,
  type PgColumnBuilderBase,
  type PgTableWithColumns,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import * as sqliteSchema from "./schema/index.js";

/**
 * The gateway's schema on PostgreSQL (DATABASE_URL), derived at load from the one written in `schema/` (D-275): what
 * drizzle-kit reads for the PostgreSQL migrations, and where storage/sql/values.ts reads a column's PostgreSQL type.
 */

// biome-ignore lint/suspicious/noExplicitAny: drizzle's table type over columns only known at run time
type DerivedTable = PgTableWithColumns<any>;

/** The PostgreSQL builder of one SQLite column, by its type and mode. */
function columnOf(column: SQLiteColumn): PgColumnBuilderBase {
  const name = column.name;
  switch (column.columnType) {
    case "SQLiteText":
      return column.enumValues?.length ? text(name, { enum: column.enumValues as [string, ...string[]] }) : text(name);
    case "SQLiteTextJson":
      return json(name);
    case "SQLiteInteger":
      return integer(name);
    case "SQLiteBoolean":
      return boolean(name);
    case "SQLiteCustomColumn":
      // epochMs (schema/epoch-ms.ts), the schema's only custom type.
      return bigint(name, { mode: "number" });
    default:
      throw new Error(`schema-pg: ${getTableName(column.table)}.${name} has a column type with no PostgreSQL twin`);
  }
}

/** A column's constraints and default, carried over. */
function withConstraints(builder: PgColumnBuilderBase, column: SQLiteColumn): PgColumnBuilderBase {
  // drizzle's builders are chainable and typed per column; here the column is only known at run time.
  let b = builder as unknown as {
    notNull(): typeof b;
    primaryKey(): typeof b;
    default(value: unknown): typeof b;
  };
  if (column.primary) b = b.primaryKey();
  else if (column.notNull) b = b.notNull();
  if (column.default !== undefined) b = b.default(column.default);
  return b as unknown as PgColumnBuilderBase;
}

/** The tables derived so far: a foreign key finds the one it references once every export below is derived. */
const derived = new Map<SQLiteTable, DerivedTable>();

function pgColumn(column: SQLiteColumn): AnyPgColumn {
  const table = derived.get(column.table);
  const key = table && Object.keys(table).find((k) => (table[k] as { name?: unknown })?.name === column.name);
  if (!table || !key) throw new Error(`schema-pg: ${getTableName(column.table)} was not derived`);
  return table[key] as AnyPgColumn;
}

/** One SQLite table's PostgreSQL twin. */
function pg(table: SQLiteTable): DerivedTable {
  const config = getTableConfig(table);
  const keys = Object.entries(table).filter(([, value]) => config.columns.includes(value as SQLiteColumn));
  const columns = Object.fromEntries(
    keys.map(([key, column]) => [key, withConstraints(columnOf(column as SQLiteColumn), column as SQLiteColumn)]),
  );
  const derivedTable = pgTable(config.name, columns, (t) => {
    const own = (column: SQLiteColumn) => {
      const key = keys.find(([, c]) => c === column)?.[0];
      if (key === undefined) throw new Error(`schema-pg: ${config.name}.${column.name} is not its own column`);
      return (t as Record<string, AnyPgColumn>)[key] as AnyPgColumn;
    };
    const extras: unknown[] = [];
    for (const pk of config.primaryKeys) {
      extras.push(primaryKey({ columns: pk.columns.map(own) as [AnyPgColumn, ...AnyPgColumn[]] }));
    }
    for (const fk of config.foreignKeys) {
      const ref = fk.reference();
      const builder = foreignKey({
        columns: ref.columns.map(own) as [AnyPgColumn, ...AnyPgColumn[]],
        foreignColumns: ref.foreignColumns.map((c) => (c.table === table ? own(c) : pgColumn(c))) as [
          AnyPgColumn,
          ...AnyPgColumn[],
        ],
      });
      if (fk.onDelete) builder.onDelete(fk.onDelete);
      if (fk.onUpdate) builder.onUpdate(fk.onUpdate);
      extras.push(builder);
    }
    for (const ix of config.indexes) {
      const on = ix.config.columns.map((c) => (is(c, SQL) ? c : own(c))) as [AnyPgColumn, ...AnyPgColumn[]];
      const built = (ix.config.unique ? uniqueIndex(ix.config.name) : index(ix.config.name)).on(...on);
      extras.push(ix.config.where ? built.where(ix.config.where) : built);
    }
    return extras as never;
  }) as DerivedTable;
  derived.set(table, derivedTable);
  return derivedTable;
}

export const alertNotices = pg(sqliteSchema.alertNotices);
export const alertSettings = pg(sqliteSchema.alertSettings);
export const alerts = pg(sqliteSchema.alerts);
export const bookedAppointments = pg(sqliteSchema.bookedAppointments);
export const capturedPayloads = pg(sqliteSchema.capturedPayloads);
export const companies = pg(sqliteSchema.companies);
export const connections = pg(sqliteSchema.connections);
export const mappingFailures = pg(sqliteSchema.mappingFailures);
export const ownerTokens = pg(sqliteSchema.ownerTokens);
export const owners = pg(sqliteSchema.owners);
export const platformDeliveries = pg(sqliteSchema.platformDeliveries);
export const platformEvents = pg(sqliteSchema.platformEvents);
export const platformWebhookSecrets = pg(sqliteSchema.platformWebhookSecrets);
export const profileVersions = pg(sqliteSchema.profileVersions);
export const profiles = pg(sqliteSchema.profiles);
export const proofFailureMinutes = pg(sqliteSchema.proofFailureMinutes);
export const sourcedLeads = pg(sqliteSchema.sourcedLeads);
export const submissionAttempts = pg(sqliteSchema.submissionAttempts);
export const submissions = pg(sqliteSchema.submissions);
export const upstreamCredentials = pg(sqliteSchema.upstreamCredentials);
export const vendorKeys = pg(sqliteSchema.vendorKeys);
export const webhookAttempts = pg(sqliteSchema.webhookAttempts);
export const webhookDeliveries = pg(sqliteSchema.webhookDeliveries);
export const webhookEvents = pg(sqliteSchema.webhookEvents);
export const webhookSubscriptions = pg(sqliteSchema.webhookSubscriptions);

/** PostgreSQL only: a change counter per cached table, bumped by a statement trigger (D-247; SQLite: table-cache). */
export const tableVersions = pgTable("table_versions", {
  /** The cached table's name (`vendor_keys`). */
  name: text("name").primaryKey(),
  /** Bumped by every statement that inserts, updates, deletes or truncates the table's rows. */
  version: bigint("version", { mode: "number" }).notNull().default(0),
});
