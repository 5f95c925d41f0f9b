import { type RawBuilder, sql } from "kysely";
import type { Sql } from "./database.js";

/**
 * What a record's store runs its statements on (docs/decisions.md, D-275): the query builder — the context's, or the
 * one of an open transaction — and the little that differs between the dialects, named. Only storage modules receive
 * it.
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

/**
 * `column` ordered by its bytes: SQLite's default (BINARY); PostgreSQL's text order follows the database's locale
 * unless told otherwise, and ids and names must list in the same order on both (D-251).
 */
export function byBytes(target: Pick<StoreSql, "dialect">, column: string): RawBuilder<unknown> {
  return target.dialect === "postgres" ? sql`${sql.ref(column)} collate "C"` : sql.ref(column);
}
