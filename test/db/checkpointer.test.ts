import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startCheckpointer } from "../../src/db/checkpointer.js";
import { openSqlite, type SqliteDatabase } from "../../src/db/sqlite.js";

const open: SqliteDatabase[] = [];

afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function database(): { db: SqliteDatabase; path: string } {
  const path = join(mkdtempSync(join(tmpdir(), "pg-ckpt-")), "test.db");
  const db = openSqlite(path);
  open.push(db);
  db.exec("create table t (id integer primary key, body text)");
  return { db, path };
}

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("background WAL checkpoints", () => {
  it("copies committed pages into the database file from its own thread, not in the writer's commits", async () => {
    const { db, path } = database();
    const checkpointer = startCheckpointer(db, { intervalMs: 20 });
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(16_384);
    const before = statSync(path).size;
    const insert = db.prepare("insert into t (body) values (?)");
    // About 2 MB: far below the writer's backstop of 16,384 pages, so only the thread can have moved it.
    db.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run("x".repeat(4_000));
    })();
    await until(() => statSync(path).size > before + 1_000_000);
    await checkpointer?.close();
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1_000);
    expect(db.prepare("select count(*) as n from t").get()).toEqual({ n: 500 });
  });

  it("leaves an in-memory database alone", () => {
    const db = openSqlite(":memory:");
    open.push(db);
    expect(startCheckpointer(db)).toBeUndefined();
  });
});
