import type { Compilable, CompiledQuery, QueryResult } from "kysely";
import type { StoreSql } from "../sql/store-sql.js";

/** Where a statement runs: a query builder (the store's, or the one `atomically` hands its work) and its dialect. */
export type On = Pick<StoreSql, "db" | "dialect">;

/** Stands for one value of a call while its statement is compiled: the compiled parameters say where it is bound. */
class Slot {
  constructor(readonly index: number) {}
}

interface Template<R> {
  query: CompiledQuery<R>;
  /** Per parameter of `query`: the index of the call's value bound there, or -1 for a constant of the statement. */
  slots: readonly number[];
}

/**
 * A statement of the delivery path, compiled once per dialect and then run with each call's values (D-275). Kysely
 * builds and compiles a query in 6–80 µs, more than SQLite takes to run it, and fan-out and delivery run thousands a
 * second (bench:fanout): these statements are built once, like the prepared statements they replace. The compiled
 * query is the same for every query builder of a dialect (the context's stores and every transaction's), so it is
 * kept here, per dialect, not per store.
 *
 * `build` receives a placeholder for each of the call's values (`arity` of them: by default its parameters after the
 * first). It may only hand them to the builder as values — never branch on them, never inline them (`sql.lit`):
 * compiling checks that each one came out as a parameter.
 */
export class CompiledOnce<A extends unknown[], R> {
  readonly #build: (on: On, ...values: A) => Compilable<R>;
  readonly #arity: number;
  readonly #templates = new Map<StoreSql["dialect"], Template<R>>();

  constructor(build: (on: On, ...values: A) => Compilable<R>, arity = build.length - 1) {
    this.#build = build;
    this.#arity = arity;
  }

  execute(on: On, ...values: A): Promise<QueryResult<R>> {
    const { query, slots } = this.#templates.get(on.dialect) ?? this.#compile(on);
    const parameters = slots.map((slot, i) => (slot < 0 ? query.parameters[i] : values[slot]));
    return on.db.executeQuery<R>({ ...query, parameters });
  }

  #compile(on: On): Template<R> {
    const placeholders = Array.from({ length: this.#arity }, (_, i) => new Slot(i)) as unknown as A;
    const query = this.#build(on, ...placeholders).compile();
    const slots = query.parameters.map((value) => (value instanceof Slot ? value.index : -1));
    for (let i = 0; i < this.#arity; i++) {
      if (!slots.includes(i)) throw new Error(`a compiled statement does not bind its value ${i}: ${query.sql}`);
    }
    // A value the builder got no placeholder for (an arity too small) would be bound as undefined on every call.
    if (query.parameters.includes(undefined)) throw new Error(`a compiled statement binds undefined: ${query.sql}`);
    const template = { query, slots };
    this.#templates.set(on.dialect, template);
    return template;
  }
}
