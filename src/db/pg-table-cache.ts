import type pg from "pg";
import { KeptRows, type TableCache } from "./table-cache.js";

export interface PgTableCacheOptions {
  /** How often the table's change counter is read (ms). */
  checkEveryMs?: number;
  /**
   * A hit is answered only while the last counter read that was applied began at most this long ago (ms): when the
   * reads stall (a saturated pool, a blocked event loop, the server unreachable), lookups go to the database instead
   * of serving what may have changed.
   */
  maxStaleMs?: number;
}

/**
 * The TableCache of PostgreSQL (D-247): emptied by this process's committed writes (`invalidate()`) and whenever the
 * table's counter in `table_versions`, read every `checkEveryMs`, moved. The timer starts at the first lookup (building
 * a cache does no I/O), is unref'd, and stops at `close()`.
 */
export class PgTableCache<T extends object> implements TableCache<T> {
  readonly #pool: pg.Pool;
  readonly #table: string;
  readonly #checkEveryMs: number;
  readonly #maxStaleMs: number;
  readonly #rows = new KeptRows<T>();
  /** The counter as last read (bigint as text), or undefined before the first read. */
  #seenVersion: string | undefined;
  /** When the last applied read of the counter began (performance.now()). */
  #freshAt = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #checking = false;
  #closed = false;

  constructor(pool: pg.Pool, table: string, options: PgTableCacheOptions = {}) {
    this.#pool = pool;
    this.#table = table;
    this.#checkEveryMs = options.checkEveryMs ?? 250;
    this.#maxStaleMs = options.maxStaleMs ?? 750;
  }

  /** The row of `id`: now when cached and fresh, else a promise of `load(id)` (kept when found). */
  lookup(id: string, load: (id: string) => Promise<T | undefined>): T | undefined | Promise<T | undefined> {
    if (this.#timer === undefined && !this.#closed) this.#start();
    const cached = performance.now() - this.#freshAt <= this.#maxStaleMs ? this.#rows.get(id) : undefined;
    return cached ?? this.#rows.load(id, load, () => !this.#closed);
  }

  /** Empties the cache (this process changed the table, and the change has committed). */
  invalidate(): void {
    this.#rows.drop();
  }

  /** Stops reading the counter; lookups from now on read the database. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.invalidate();
  }

  #start(): void {
    this.#timer = setInterval(() => void this.#check(), this.#checkEveryMs);
    this.#timer.unref();
    void this.#check();
  }

  async #check(): Promise<void> {
    // One read at a time: a read slower than the interval skips ticks rather than piling up on the pool.
    if (this.#checking || this.#closed) return;
    this.#checking = true;
    const began = performance.now();
    try {
      const { rows } = await this.#pool.query<{ version: string }>({
        name: "table_versions_version",
        text: 'SELECT "version"::text AS "version" FROM "table_versions" WHERE "name" = $1',
        values: [this.#table],
      });
      const version = rows[0]?.version ?? "0";
      // The first read empties the cache too: rows loaded before it may predate a change it is the first to see.
      if (version !== this.#seenVersion) this.invalidate();
      this.#seenVersion = version;
      this.#freshAt = began;
    } catch {
      // Not fresh any more once `maxStaleMs` passed: lookups then read the database, whose errors reach the caller.
    } finally {
      this.#checking = false;
    }
  }
}
