import type { MaybePromise } from "../gateway/storage/maybe.js";
import type { SqliteDatabase } from "./sqlite.js";

/** Entries kept at most; past it the cache starts again empty (a lookup then costs one query, as without the cache). */
const MAX_ENTRIES = 10_000;
/** Each cache registers its own function and triggers: a second cache of a table must not silence the first. */
let caches = 0;

/**
 * Rows of one table by key, kept for as long as nobody could have changed the table (D-247, D-275). A hit is answered
 * synchronously; a miss is a promise of `load`, never cached (unknown ids cannot fill memory). How it learns of
 * another's change is each dialect's own: `fresh` and `keeps`.
 */
export abstract class TableCache<T extends object> {
  readonly #rows = new Map<string, T>();
  /** Moves whenever the rows are dropped: a load begun before keeps nothing. */
  #generation = 0;

  /** Whether a hit may be answered now (having emptied the cache if the table changed). */
  protected abstract fresh(): boolean;
  /** Whether a row loaded now may be kept. */
  protected abstract keeps(): boolean;

  lookup(id: string, load: (id: string) => Promise<T | undefined>): MaybePromise<T | undefined> {
    const hit = this.fresh() ? this.#rows.get(id) : undefined;
    if (hit) return hit;
    const generation = this.#generation;
    return load(id).then((row) => {
      if (row !== undefined && generation === this.#generation && this.keeps()) {
        if (this.#rows.size >= MAX_ENTRIES) this.#rows.clear();
        // Shared by every request that finds it: nobody may change it.
        this.#rows.set(id, Object.freeze(row));
      }
      return row;
    });
  }

  /** This process changed the table and the change has committed: empty the cache. */
  invalidate(): void {
    this.#rows.clear();
    this.#generation++;
  }

  close(): void {
    this.invalidate();
  }
}

/**
 * The SQLite cache, emptied by either signal: a temporary trigger counting this connection's own writes to the table
 * (they hold from the next request), and `PRAGMA data_version`, moved by any other connection's commit. That costs
 * about the lookup it saves, so it is read at most every `checkEveryMs`.
 */
export class SqliteTableCache<T extends object> extends TableCache<T> {
  readonly #dataVersion;
  #ownWrites = 0;
  #seenWrites = 0;
  #seenVersion = -1;
  #checkedAt = Number.NEGATIVE_INFINITY;

  constructor(
    sqlite: SqliteDatabase,
    table: string,
    private readonly checkEveryMs = 100,
  ) {
    super();
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

  protected fresh(): boolean {
    const now = Date.now();
    if (now - this.#checkedAt >= this.checkEveryMs) {
      this.#checkedAt = now;
      const version = this.#dataVersion.get() as number;
      if (version !== this.#seenVersion) this.invalidate();
      this.#seenVersion = version;
    }
    if (this.#ownWrites !== this.#seenWrites) {
      this.invalidate();
      this.#seenWrites = this.#ownWrites;
    }
    return true;
  }

  protected keeps(): boolean {
    return this.#ownWrites === this.#seenWrites;
  }
}
