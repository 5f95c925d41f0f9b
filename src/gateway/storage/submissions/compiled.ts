import type { Compilable, CompiledQuery, QueryResult } from "kysely";
import type { Sql } from "../sql/database.js";
import type { StoreSql } from "../sql/store-sql.js";

/** Where a run's argument goes in a statement compiled once: the argument's name. */
class Argument {
  constructor(readonly name: string) {}
}

/** What a compiled statement runs on: a query builder (the store's, or an open transaction's) and its dialect. */
export type Target = Pick<StoreSql, "db" | "dialect">;

export interface Compiled<A, R> {
  run(target: Target, args: A): Promise<QueryResult<R>>;
}

/**
 * A statement of the hot paths (intake's insert, a send's claim and attempt, the per-row reads) compiled once per
 * dialect and run with each call's arguments (D-275): Kysely spends 10-40 µs building and compiling a query, more than
 * better-sqlite3 takes to run one of these (compiled per row, intake's group-committed insert measured twice the CPU).
 * `build` receives `args` whose fields stand for the run's arguments; every other value in the query stays as it was
 * compiled. Usage:
 * `compiledOnce<{ id: string }>()((db, args) => db.selectFrom("submissions").selectAll().where("id", "=", args.id))`.
 */
export function compiledOnce<A extends object>() {
  return <R>(build: (db: Sql, args: A) => Compilable<R>): Compiled<A, R> => {
    const templates = new Map<StoreSql["dialect"], CompiledQuery<R>>();
    const placeholders = new Proxy({}, { get: (_, name) => new Argument(String(name)) }) as A;
    return {
      run(target, args) {
        let template = templates.get(target.dialect);
        if (!template) {
          template = build(target.db, placeholders).compile();
          templates.set(target.dialect, template);
        }
        const values = args as Record<string, unknown>;
        const parameters = template.parameters.map((p) => (p instanceof Argument ? (values[p.name] ?? null) : p));
        return target.db.executeQuery({ ...template, parameters });
      },
    };
  };
}
