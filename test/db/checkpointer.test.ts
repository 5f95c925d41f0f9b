import { spawnSync } from "node:child_process";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
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
  await vi.waitUntil(check, { timeout: timeoutMs, interval: 20 });
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

  it("keeps the process alive through its last checkpoint when close() is awaited at the top level", () => {
    const path = join(mkdtempSync(join(tmpdir(), "pg-ckpt-")), "test.db");
    const checkpointer = fileURLToPath(new URL("../../src/db/checkpointer.ts", import.meta.url));
    const sqlite = fileURLToPath(new URL("../../src/db/sqlite.ts", import.meta.url));
    // A module whose only live handle while it closes is the checkpoint thread; about 8 MB of WAL to copy.
    const script = `
      import { startCheckpointer } from ${JSON.stringify(checkpointer)};
      import { openSqlite } from ${JSON.stringify(sqlite)};
      const db = openSqlite(${JSON.stringify(path)});
      db.exec("create table t (id integer primary key, body text)");
      const checkpointer = startCheckpointer(db, { intervalMs: 60_000 });
      const insert = db.prepare("insert into t (body) values (?)");
      db.transaction(() => { for (let i = 0; i < 2_000; i++) insert.run("x".repeat(4_000)); })();
      await checkpointer.close();
      db.close();
      process.stdout.write("closed");
    `;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect({ status: child.status, stdout: child.stdout }).toEqual({ status: 0, stdout: "closed" });
  });
});
