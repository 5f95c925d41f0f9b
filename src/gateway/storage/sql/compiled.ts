import type { Compilable, CompiledQuery, QueryResult } from "kysely";
import type { StoreSql } from "./store-sql.js";

/** Where a statement runs: a query builder (the store's, or the one `atomically` hands its work) and its dialect. */
export type On = Pick<StoreSql, "db" | "dialect">;

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
 * dialect and then run with each call's values (D-275). Kysely builds and compiles a query in 6–80 µs, more than
 * better-sqlite3 takes to run one of these, and they run thousands of times a second (bench:intake, bench:fanout): so
 * they are built once, like the prepared statements they replace. The compiled query is the same for every query
 * builder of a dialect (the context's stores and every transaction's), so it is kept here, per dialect, not per store.
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
    const { query, names } = this.#templates.get(on.dialect) ?? this.#compile(on);
    const values = args as Record<string, unknown>;
    const parameters = names.map((name, i) => (name === undefined ? query.parameters[i] : (values[name] ?? null)));
    return on.db.executeQuery<R>({ ...query, parameters });
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
    return template;
  }
}

/** The call's values `names`, for a builder that writes them as they are (`.values(…)`, `.set(…)`): read one by one. */
export function pick<A extends object, K extends keyof A & string>(args: A, names: readonly K[]): Pick<A, K> {
  return Object.fromEntries(names.map((name) => [name, args[name]])) as Pick<A, K>;
}
