import type pg from "pg";
import { TableCache } from "./table-cache.js";

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
 * a cache does no I/O), is unref'd, and stops at `close()`; lookups from then on read the database.
 */
export class PgTableCache<T extends object> extends TableCache<T> {
  readonly #checkEveryMs: number;
  readonly #maxStaleMs: number;
  /** The counter as last read (bigint as text), or undefined before the first read. */
  #seenVersion: string | undefined;
  /** When the last applied read of the counter began (performance.now()). */
  #freshAt = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #checking = false;
  #closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly table: string,
    options: PgTableCacheOptions = {},
  ) {
    super();
    this.#checkEveryMs = options.checkEveryMs ?? 250;
    this.#maxStaleMs = options.maxStaleMs ?? 750;
  }

  protected fresh(): boolean {
    if (this.#timer === undefined && !this.#closed) {
      this.#timer = setInterval(() => void this.#check(), this.#checkEveryMs);
      this.#timer.unref();
      void this.#check();
    }
    return performance.now() - this.#freshAt <= this.#maxStaleMs;
  }

  protected keeps(): boolean {
    return !this.#closed;
  }

  override close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    super.close();
  }

  async #check(): Promise<void> {
    // One read at a time: a read slower than the interval skips ticks rather than piling up on the pool.
    if (this.#checking || this.#closed) return;
    this.#checking = true;
    const began = performance.now();
    try {
      const { rows } = await this.pool.query<{ version: string }>({
        name: "table_versions_version",
        text: 'SELECT "version"::text AS "version" FROM "table_versions" WHERE "name" = $1',
        values: [this.table],
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
