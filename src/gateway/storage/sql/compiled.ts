import type { Compilable, CompiledQuery, QueryResult } from "kysely";
import { statementsInside } from "./sqlite.js";
import type { StoreSql } from "./store-sql.js";

/** Where a statement runs: a query builder (the store's, or the one `atomically` hands its work) and its dialect. */
export type On = Pick<StoreSql, "db" | "dialect">;

/**
 * The compiled statements' PostgreSQL texts, each named: node-postgres prepares a named statement once per connection,
 * an unnamed one is parsed and planned on every call (D-362). Only fixed texts: one varying with its arguments (an `in`
 * list) would leave a prepared statement per shape on every connection.
 */
const preparedNames = new Map<string, string>();

/** The name a compiled statement's PostgreSQL text is prepared under, or undefined for any other statement. */
export function preparedName(sqlText: string): string | undefined {
  return preparedNames.get(sqlText);
}

/** Stands for the call's value `name` while its statement is compiled: the compiled parameters say where it is bound. */
class Argument {
  constructor(readonly name: string) {}
}

interface Template<R> {
  query: CompiledQuery<R>;
  /** Per parameter of `query`: the name of the call's value bound there, or undefined for a constant of the statement. */
  names: readonly (string | undefined)[];
}

/**
 * A statement of a hot path (intake's insert, a send's claim and attempt, fan-out and delivery) compiled once per
 * dialect, not per store, and run with each call's values (D-275): Kysely takes 6–80 µs to build and compile a query,
 * more than better-sqlite3 takes to run one of these.
 *
 * `build` receives `args` whose fields (or items, for an array) stand for the call's values:
 * `new CompiledOnce((on, args: { id: string }) => on.db.selectFrom(…).selectAll().where("id", "=", args.id))`.
 * It may only hand them to the builder as values — never branch on them, never inline them (`sql.lit`): compiling
 * checks that each one it read came out as a parameter. A value the call leaves out is bound as NULL.
 */
export class CompiledOnce<A extends object, R> {
  readonly #build: (on: On, args: A) => Compilable<R>;
  readonly #templates = new Map<StoreSql["dialect"], Template<R>>();

  constructor(build: (on: On, args: A) => Compilable<R>) {
    this.#build = build;
  }

  run(on: On, args: A): Promise<QueryResult<R>> {
    return on.db.executeQuery<R>(this.#bind(on, args));
  }

  /**
   * A write (no rows returned) run at once on SQLite inside the open transaction, as intake's group commit writes its
   * rows, without the several promise turns of Kysely's pipeline while the one writer is held (D-363); else as `run`.
   */
  write(on: On, args: A): Promise<unknown> | undefined {
    const statements = on.dialect === "sqlite" ? statementsInside(on.db) : undefined;
    if (!statements) return this.run(on, args);
    statements.run(this.#bind(on, args));
    return undefined;
  }

  #bind(on: On, args: A): CompiledQuery<R> {
    const { query, names } = this.#templates.get(on.dialect) ?? this.#compile(on);
    const values = args as Record<string, unknown>;
    const parameters = names.map((name, i) => (name === undefined ? query.parameters[i] : (values[name] ?? null)));
    return { ...query, parameters };
  }

  #compile(on: On): Template<R> {
    const read = new Set<string>();
    const placeholders = new Proxy(
      {},
      {
        get: (_, name) => {
          if (typeof name !== "string") return undefined;
          read.add(name);
          return new Argument(name);
        },
        // Kysely would read an object's own keys, and find none: each value is named where it goes.
        ownKeys: () => {
          throw new Error("a compiled statement's values are read one by one, by name");
        },
      },
    ) as A;
    const query = this.#build(on, placeholders).compile();
    const names = query.parameters.map((value) => (value instanceof Argument ? value.name : undefined));
    for (const name of read) {
      if (!names.includes(name)) throw new Error(`a compiled statement does not bind its value ${name}: ${query.sql}`);
    }
    // A constant undefined would be bound as NULL on every call: a value the builder meant to take from the call.
    if (query.parameters.includes(undefined)) throw new Error(`a compiled statement binds undefined: ${query.sql}`);
    const template = { query, names };
    this.#templates.set(on.dialect, template);
    if (on.dialect === "postgres" && !preparedNames.has(query.sql)) {
      preparedNames.set(query.sql, `pgw_compiled_${preparedNames.size + 1}`);
    }
    return template;
  }
}

/** The call's values `names`, for a builder that writes them as they are (`.values(…)`, `.set(…)`): read one by one. */
export function pick<A extends object, K extends keyof A & string>(args: A, names: readonly K[]): Pick<A, K> {
  return Object.fromEntries(names.map((name) => [name, args[name]])) as Pick<A, K>;
}
