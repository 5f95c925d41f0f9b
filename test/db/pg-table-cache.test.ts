import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgTableCache } from "../../src/db/pg-table-cache.js";
import { postgresAvailable, usePostgresDatabase } from "../helpers/postgres.js";

const available = await postgresAvailable();

/** The PostgreSQL key cache's signals (docs/decisions.md, D-247). */
describe.skipIf(!available)("PgTableCache and the table_versions counter", () => {
  const database = usePostgresDatabase();
  let pool: pg.Pool;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: database.url, max: 3 });
    pool.on("error", () => undefined);
  });
  afterAll(async () => {
    await pool?.end();
  });

  async function counter(): Promise<number> {
    const { rows } = await pool.query<{ version: string }>(
      "SELECT version::text AS version FROM table_versions WHERE name = 'vendor_keys'",
    );
    return Number(rows[0]?.version);
  }

  it("every statement that changes vendor_keys bumps its counter when it commits, not when it rolls back", async () => {
    const before = await counter();
    await pool.query("UPDATE vendor_keys SET name = name WHERE false");
    expect(await counter()).toBe(before + 1);
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("DELETE FROM vendor_keys WHERE false");
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
    expect(await counter()).toBe(before + 1);
    await pool.query("TRUNCATE vendor_keys CASCADE");
    expect(await counter()).toBe(before + 2);
  });

  it("a counter that moved empties the cache at its next read", async () => {
    const cache = new PgTableCache<{ id: string; n: number }>(pool, "vendor_keys", { checkEveryMs: 20 });
    let loads = 0;
    const load = async (id: string) => ({ id, n: ++loads });
    try {
      await expect.poll(() => cache.lookup("k1", load) instanceof Promise).toBe(false);
      const kept = loads;
      // Positive control: hits while nothing changes.
      expect(cache.lookup("k1", load)).toEqual({ id: "k1", n: kept });
      await pool.query("UPDATE vendor_keys SET name = name WHERE false");
      await expect.poll(async () => (await cache.lookup("k1", load))?.n, { timeout: 1_000 }).toBeGreaterThan(kept);
    } finally {
      cache.close();
    }
  });

  it("when the counter is not read for maxStaleMs, lookups go to the database instead of the cache", async () => {
    // The counter is read once at the first lookup, then not again for a minute (a stalled timer or pool).
    const cache = new PgTableCache<{ id: string }>(pool, "vendor_keys", { checkEveryMs: 60_000, maxStaleMs: 150 });
    let loads = 0;
    const load = async (id: string) => {
      loads++;
      return { id };
    };
    try {
      // Positive control: fresh, it answers from memory.
      await expect.poll(() => cache.lookup("k1", load) instanceof Promise).toBe(false);
      const hits = loads;
      expect(cache.lookup("k1", load)).toEqual({ id: "k1" });
      expect(loads).toBe(hits);
      await expect.poll(() => cache.lookup("k1", load) instanceof Promise, { timeout: 1_000 }).toBe(true);
      expect(loads).toBeGreaterThan(hits);
    } finally {
      cache.close();
    }
  });

  it("a closed cache reads the database on every lookup and keeps nothing", async () => {
    const cache = new PgTableCache<{ id: string }>(pool, "vendor_keys", { checkEveryMs: 20 });
    const load = async (id: string) => ({ id });
    await expect.poll(() => cache.lookup("k1", load) instanceof Promise).toBe(false);
    cache.close();
    expect(cache.lookup("k1", load)).toBeInstanceOf(Promise);
    await cache.lookup("k1", load);
    expect(cache.lookup("k1", load)).toBeInstanceOf(Promise);
  });
});
