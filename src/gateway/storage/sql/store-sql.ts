import { type Kysely, type RawBuilder, type Selectable, sql } from "kysely";
import type { Database, Sql } from "./database.js";

/**
 * What a record's store runs its statements on (D-275): the query builder — the context's, or an open transaction's —
 * and the little that differs between the dialects. Only storage modules receive it.
 */
export interface StoreSql {
  readonly db: Sql;
  readonly dialect: "sqlite" | "postgres";
  /** `db` belongs to an open transaction (a store's own `atomically` then runs inline in it). */
  readonly inTransaction: boolean;
  /**
   * A store's several statements as one: inline in the open transaction, else in one of their own (`immediate`: the
   * write lock first, for work that reads before it writes while other processes may write; D-249).
   */
  atomically<T>(work: (db: Sql) => Promise<T>, mode?: "deferred" | "immediate"): Promise<T>;
}

/** A StoreSql on `db`: of an open transaction (a store's own work runs inline) unless `atomically` opens one. */
export function storeSql(db: Sql, dialect: StoreSql["dialect"], atomically?: StoreSql["atomically"]): StoreSql {
  return { db, dialect, inTransaction: !atomically, atomically: atomically ?? ((work) => work(db)) };
}

/**
 * `column` ordered by its bytes: SQLite's default (BINARY); PostgreSQL's text order follows the database's locale
 * unless told otherwise, and ids and names must list in the same order on both (D-251).
 */
export function byBytes(target: Pick<StoreSql, "dialect">, column: string): RawBuilder<unknown> {
  return target.dialect === "postgres" ? sql`${sql.ref(column)} collate "C"` : sql.ref(column);
}

/** Runs a statement for its effect: a port's write promises nothing of the statement's result. */
export async function run(statement: { execute(): Promise<unknown> }): Promise<void> {
  await statement.execute();
}

/** What a record's statement function takes: the store's StoreSql, then the call's own arguments. */
type Statement = (sql: StoreSql, ...args: never[]) => unknown;

/** The statement functions of `module`, each without its first argument: bound to one StoreSql. */
export type Bound<M> = {
  [K in keyof M as M[K] extends Statement ? K : never]: M[K] extends (sql: StoreSql, ...args: infer A) => infer R
    ? (...args: A) => R
    : never;
};

/** The statement functions of a record's module (its other exports left out) bound to `sql`: store methods (D-373). */
export function bound<M extends object>(sql: StoreSql, module: M): Bound<M> {
  const methods: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(module)) {
    if (typeof value === "function") methods[name] = value.bind(undefined, sql);
  }
  return methods as Bound<M>;
}

/** Code-unit order: SQLite's (BINARY), and byBytes' for the ASCII ids and keys the stores sort in memory. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The tables whose rows belong to a company (`companyId`), each named by its `id` and made at `createdAt`. */
type CompanyTable = {
  [K in keyof Database]: "id" | "companyId" | "createdAt" extends keyof Database[K] ? K : never;
}[keyof Database];

/** `table` as the statements below see it: a company's rows (they read no other column, and select all). */
function companyRows(db: Sql, table: CompanyTable) {
  const rows = db as unknown as Kysely<Record<"rows", { id: string; companyId: string; createdAt: string }>>;
  return rows.selectFrom(table as "rows").selectAll();
}

/** One of a company's rows by its id: another company's is not found (the tenant scope of every owner read). */
export function rowOfCompany<T extends CompanyTable>(db: Sql, table: T, id: string, companyId: string) {
  const row = companyRows(db, table).where("id", "=", id).where("companyId", "=", companyId).executeTakeFirst();
  return row as Promise<Selectable<Database[T]> | undefined>;
}

/** A company's rows in the order they were made: by `createdAt`, then id (D-251). */
export function rowsOfCompany<T extends CompanyTable>(sql: StoreSql, table: T, companyId: string) {
  const rows = companyRows(sql.db, table).where("companyId", "=", companyId).orderBy("createdAt");
  return rows.orderBy(byBytes(sql, "id")).execute() as Promise<Selectable<Database[T]>[]>;
}
