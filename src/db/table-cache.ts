import type { MaybePromise } from "../gateway/storage/maybe.js";
import type { SqliteDatabase } from "./sqlite.js";

/** Entries kept at most; past it the cache starts again empty (a lookup then costs one query, as without the cache). */
const MAX_ENTRIES = 10_000;
/** Each cache registers its own function and triggers: a second cache of a table must not silence the first. */
let caches = 0;

/**
 * Rows of one table by key, kept for as long as nobody could have changed the table (D-247, D-275). A hit is answered
 * synchronously; a miss is a promise of `load`, never cached (unknown ids cannot fill memory).
 */
export interface TableCache<T extends object> {
  lookup(id: string, load: (id: string) => Promise<T | undefined>): MaybePromise<T | undefined>;
  /** This process changed the table and the change has committed: empty the cache. */
  invalidate(): void;
  close(): void;
}

/** The rows a cache of either dialect keeps, and how it keeps them. */
export class KeptRows<T extends object> {
  readonly #rows = new Map<string, T>();
  /** Moves whenever the rows are dropped: a load begun before keeps nothing. */
  #generation = 0;

  get(id: string): T | undefined {
    return this.#rows.get(id);
  }

  drop(): void {
    this.#rows.clear();
    this.#generation++;
  }

  /** `load(id)`, its row kept if the rows were not dropped meanwhile and `keep()` still holds when it comes. */
  load(id: string, load: (id: string) => Promise<T | undefined>, keep: () => boolean): Promise<T | undefined> {
    const generation = this.#generation;
    return load(id).then((row) => {
      if (row !== undefined && generation === this.#generation && keep()) {
        if (this.#rows.size >= MAX_ENTRIES) this.#rows.clear();
        // Shared by every request that finds it: nobody may change it.
        this.#rows.set(id, Object.freeze(row));
      }
      return row;
    });
  }
}

/**
 * The SQLite cache, emptied by either signal: a temporary trigger counting this connection's own writes to the table
 * (they hold from the next request), and `PRAGMA data_version`, moved by any other connection's commit. That costs
 * about the lookup it saves, so it is read at most every `checkEveryMs`.
 */
export class SqliteTableCache<T extends object> implements TableCache<T> {
  readonly #rows = new KeptRows<T>();
  readonly #dataVersion;
  readonly #checkEveryMs: number;
  #ownWrites = 0;
  #seenWrites = 0;
  #seenVersion = -1;
  #checkedAt = Number.NEGATIVE_INFINITY;

  constructor(sqlite: SqliteDatabase, table: string, checkEveryMs = 100) {
    this.#checkEveryMs = checkEveryMs;
    const name = `pg_cache_${++caches}_${table}`;
    const fn = `${name}_changed`;
    sqlite.function(fn, { deterministic: false, varargs: false }, () => {
      this.#ownWrites++;
      return null;
    });
    for (const event of ["insert", "update", "delete"]) {
      sqlite.exec(`create temp trigger "${name}_${event}" after ${event} on main."${table}" begin select ${fn}(); end`);
    }
    this.#dataVersion = sqlite.prepare("pragma data_version").pluck();
  }

  lookup(id: string, load: (id: string) => Promise<T | undefined>): MaybePromise<T | undefined> {
    const now = Date.now();
    if (now - this.#checkedAt >= this.#checkEveryMs) {
      this.#checkedAt = now;
      const version = this.#dataVersion.get() as number;
      if (version !== this.#seenVersion) this.invalidate();
      this.#seenVersion = version;
    }
    if (this.#ownWrites !== this.#seenWrites) {
      this.invalidate();
      this.#seenWrites = this.#ownWrites;
    }
    return this.#rows.get(id) ?? this.#rows.load(id, load, () => this.#ownWrites === this.#seenWrites);
  }

  invalidate(): void {
    this.#rows.drop();
  }

  close(): void {
    this.invalidate();
  }
}
