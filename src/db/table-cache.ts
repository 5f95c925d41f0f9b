import type { SqliteDatabase } from "./sqlite.js";

/** Entries kept at most; past it the cache starts again empty (a lookup then costs one query, as without the cache). */
const MAX_ENTRIES = 10_000;
/** Each cache registers its own function and triggers: a second cache of a table must not silence the first. */
let caches = 0;

/**
 * Rows of one table by key, valid for as long as nobody could have changed the table.
 *
 * Two signals: a temporary trigger on this connection counts its own inserts, updates and deletes of the table
 * (whichever code made them), so this process's own change (a revocation through the owner API) holds from the very
 * next request; and `PRAGMA data_version`, which changes when any other connection — another process, the CLI —
 * commits to the database file. Reading it costs as much as the lookup it saves, so it is read at most every
 * `checkEveryMs` (100 ms): another process's change holds here within that. Either signal empties the cache. A miss
 * is never cached: unknown ids cost a query each, and cannot fill memory.
 *
 * For lookups on the intake hot path: the vendor key of every request.
 */
export function tableCache<T>(
  sqlite: SqliteDatabase,
  table: string,
  load: (id: string) => T | undefined,
  checkEveryMs = 100,
): (id: string) => T | undefined {
  let ownWrites = 0;
  const name = `pg_cache_${++caches}_${table}`;
  const fn = `${name}_changed`;
  sqlite.function(fn, { deterministic: false, varargs: false }, () => {
    ownWrites++;
    return null;
  });
  for (const event of ["insert", "update", "delete"]) {
    sqlite.exec(
      `create temp trigger "${name}_${event}" after ${event} on main."${table}"
       begin select ${fn}(); end`,
    );
  }
  const dataVersion = sqlite.prepare("pragma data_version").pluck();
  const rows = new Map<string, T>();
  let seenWrites = 0;
  let seenVersion = -1;
  let checkedAt = Number.NEGATIVE_INFINITY;
  return (id) => {
    const now = Date.now();
    if (now - checkedAt >= checkEveryMs) {
      checkedAt = now;
      const version = dataVersion.get() as number;
      if (version !== seenVersion) rows.clear();
      seenVersion = version;
    }
    if (ownWrites !== seenWrites || rows.size >= MAX_ENTRIES) {
      rows.clear();
      seenWrites = ownWrites;
    }
    const cached = rows.get(id);
    if (cached !== undefined) return cached;
    const row = load(id);
    // Shared by every request that finds it: nobody may change it.
    if (row !== undefined) rows.set(id, Object.freeze(row));
    return row;
  };
}
