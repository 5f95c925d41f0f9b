import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { openSqlite, type SqliteDatabase } from "../../src/db/sqlite.js";
import { tableCache } from "../../src/db/table-cache.js";

interface Key {
  id: string;
  revoked: number;
}

function keysTable(path = ":memory:") {
  const sqlite = openSqlite(path);
  sqlite.exec("create table if not exists keys (id text primary key, revoked integer not null default 0)");
  return sqlite;
}

/** A cached lookup that counts the queries it really makes. */
function counted(sqlite: SqliteDatabase, checkEveryMs = 20) {
  const select = sqlite.prepare("select id, revoked from keys where id = ?");
  let queries = 0;
  const find = tableCache(
    sqlite,
    "keys",
    (id) => {
      queries++;
      return select.get(id) as Key | undefined;
    },
    checkEveryMs,
  );
  return { find, queries: () => queries };
}

describe("tableCache (the vendor key of every intake request)", () => {
  it("answers a repeated lookup from memory while the table is unchanged", () => {
    const sqlite = keysTable();
    sqlite.exec("insert into keys (id) values ('k1')");
    const { find, queries } = counted(sqlite);
    expect(find("k1")).toEqual({ id: "k1", revoked: 0 });
    expect(find("k1")).toEqual({ id: "k1", revoked: 0 });
    expect(queries()).toBe(1);
    expect(Object.isFrozen(find("k1"))).toBe(true);
  });

  it("sees this connection's own update at once, whoever made it (a revocation)", () => {
    const sqlite = keysTable();
    sqlite.exec("insert into keys (id) values ('k1')");
    const { find } = counted(sqlite);
    expect(find("k1")?.revoked).toBe(0);
    sqlite.exec("update keys set revoked = 1 where id = 'k1'");
    expect(find("k1")?.revoked).toBe(1);
    sqlite.exec("delete from keys where id = 'k1'");
    expect(find("k1")).toBeUndefined();
  });

  it("sees another connection's commit (another process, the CLI) once it reads data_version again", () => {
    // The cache reads data_version at most every `checkEveryMs` (20 here) by Date.now(): a fake Date moves it.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const path = join(mkdtempSync(join(tmpdir(), "pg-cache-")), "db.sqlite");
      const mine = keysTable(path);
      const theirs = keysTable(path);
      mine.exec("insert into keys (id) values ('k1')");
      const { find, queries } = counted(mine);
      expect(find("k1")?.revoked).toBe(0);
      theirs.exec("update keys set revoked = 1 where id = 'k1'");
      // Positive control: within the interval the cached row answers (the cost the interval saves).
      vi.advanceTimersByTime(19);
      expect(find("k1")?.revoked).toBe(0);
      expect(queries()).toBe(1);
      vi.advanceTimersByTime(1);
      expect(find("k1")?.revoked).toBe(1);
      expect(queries()).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("does not cache a miss: a key created after an unknown lookup is found", () => {
    const sqlite = keysTable();
    const { find, queries } = counted(sqlite);
    expect(find("k2")).toBeUndefined();
    expect(find("k2")).toBeUndefined();
    expect(queries()).toBe(2);
    sqlite.exec("insert into keys (id) values ('k2')");
    expect(find("k2")).toEqual({ id: "k2", revoked: 0 });
  });

  it("keeps two caches of one table on one connection apart", () => {
    const sqlite = keysTable();
    sqlite.exec("insert into keys (id) values ('k1')");
    const first = counted(sqlite);
    const second = counted(sqlite);
    first.find("k1");
    second.find("k1");
    sqlite.exec("update keys set revoked = 1 where id = 'k1'");
    expect(first.find("k1")?.revoked).toBe(1);
    expect(second.find("k1")?.revoked).toBe(1);
  });

  it("ignores writes to other tables", () => {
    const sqlite = keysTable();
    sqlite.exec("create table other (x integer); insert into keys (id) values ('k1')");
    const { find, queries } = counted(sqlite);
    find("k1");
    sqlite.exec("insert into other values (1)");
    find("k1");
    expect(queries()).toBe(1);
  });
});
