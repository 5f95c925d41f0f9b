import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { migrationsFolder } from "../../src/db/migrate.js";
import { type GatewayPostgres, openPostgres, withStartupLock } from "../../src/db/postgres.js";
import * as schemaPg from "../../src/db/schema-pg.js";
import { postgresAvailable, usePostgresDatabase } from "../helpers/postgres.js";

const available = await postgresAvailable();
const journal = JSON.parse(readFileSync(join(migrationsFolder("gateway-pg"), "meta", "_journal.json"), "utf8")) as {
  entries: unknown[];
};
const tableCount = Object.keys(schemaPg).length;

async function gatewayTables(database: GatewayPostgres): Promise<string[]> {
  const { rows } = await database.pool.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
  );
  return rows.map((row) => row.table_name);
}

async function appliedMigrations(database: GatewayPostgres): Promise<string[]> {
  const { rows } = await database.pool.query<{ hash: string }>(
    "SELECT hash FROM drizzle.__drizzle_migrations ORDER BY id",
  );
  return rows.map((row) => row.hash);
}

describe.skipIf(!available)("PostgreSQL migrations under the startup lock (docs/decisions.md, D-227)", () => {
  const database = usePostgresDatabase({ migrate: false });

  it("two processes migrating one empty database at once both succeed, and each migration is applied once", async () => {
    const [first, second] = await Promise.all([openPostgres(database.url), openPostgres(database.url)]);
    try {
      const tables = await gatewayTables(first);
      expect(tables).toHaveLength(tableCount);
      expect(tables).toContain("submissions");
      expect(await appliedMigrations(second)).toHaveLength(journal.entries.length);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("migrating again changes nothing", async () => {
    const before = await openPostgres(database.url);
    const applied = await appliedMigrations(before);
    await before.close();
    const again = await openPostgres(database.url);
    try {
      expect(await appliedMigrations(again)).toEqual(applied);
      expect(await gatewayTables(again)).toHaveLength(tableCount);
    } finally {
      await again.close();
    }
  });

  it("pooled connections carry the statement timeout; the lock's connection has none", async () => {
    const opened = await openPostgres(database.url, { migrate: false, statementTimeoutMs: 1_500, poolMax: 2 });
    try {
      const pooled = await opened.pool.query<{ statement_timeout: string }>("SHOW statement_timeout");
      expect(pooled.rows[0]?.statement_timeout).toBe("1500ms");
      const onLock = await withStartupLock(opened, (lock) =>
        lock.query<{ statement_timeout: string }>("SHOW statement_timeout"),
      );
      expect(onLock.rows[0]?.statement_timeout).toBe("0");
      await expect(opened.pool.query("SELECT pg_sleep(3)")).rejects.toThrow(/statement timeout/);
    } finally {
      await opened.close();
    }
  });
});

describe.skipIf(!available)("the startup lock serializes its holders (docs/decisions.md, D-227)", () => {
  const database = usePostgresDatabase({ migrate: false });

  it("a second caller waits in pg_advisory_lock until the first one's work has settled, then runs", async () => {
    const opened = await openPostgres(database.url, { migrate: false, poolMax: 2 });
    try {
      const order: string[] = [];
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = withStartupLock(opened, async () => {
        order.push("first in");
        await held;
        order.push("first out");
      });
      await vi.waitFor(() => expect(order).toEqual(["first in"]));
      const second = withStartupLock(opened, async () => {
        order.push("second in");
      });
      // The second caller is blocked on the lock itself (a waiting advisory lock), not merely not yet started.
      await expect
        .poll(async () => {
          const { rows } = await opened.pool.query<{ waiting: number }>(
            "SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
          );
          return rows[0]?.waiting;
        })
        .toBe(1);
      expect(order).toEqual(["first in"]);
      release();
      await Promise.all([first, second]);
      expect(order).toEqual(["first in", "first out", "second in"]);
    } finally {
      await opened.close();
    }
  });

  it("the lock is released when the work throws", async () => {
    const opened = await openPostgres(database.url, { migrate: false, poolMax: 1 });
    try {
      await expect(
        withStartupLock(opened, async () => {
          throw new Error("config file refused");
        }),
      ).rejects.toThrow("config file refused");
      await expect(withStartupLock(opened, async () => "next")).resolves.toBe("next");
    } finally {
      await opened.close();
    }
  });
});
