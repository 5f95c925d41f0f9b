import type { Table } from "drizzle-orm";
import type { ColumnType, Kysely } from "kysely";
import type * as schema from "../../../db/schema/index.js";

/** One table's columns as Kysely types them: what a select returns, an insert takes (optional when it may be absent), an update sets. */
type Columns<T extends Table> = {
  [K in keyof T["$inferSelect"]]: ColumnType<
    T["$inferSelect"][K],
    K extends keyof T["$inferInsert"] ? T["$inferInsert"][K] : never,
    T["$inferSelect"][K]
  >;
};

type Schema = typeof schema;

/**
 * The gateway's tables as every store queries them, on SQLite and PostgreSQL alike (D-275): typed from the one schema
 * of db/schema/, named in camelCase as its keys (the CamelCasePlugin maps `companyId` to the column `company_id`).
 */
export type Database = {
  [K in keyof Schema as Schema[K] extends Table ? K : never]: Schema[K] extends Table ? Columns<Schema[K]> : never;
};

/** The query builder a store runs its statements on: the pool's (or SQLite's connection), or one transaction's. */
export type Sql = Kysely<Database>;
