import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { blob, sqliteTable } from "drizzle-orm/sqlite-core";
import { afterAll, describe, expect, it } from "vitest";
import { isStoreOutage, outageCause } from "../../../src/gateway/outage/index.js";
import { mountSmallFilesystem, type SmallFilesystem } from "../../helpers/small-filesystem.js";

/** The error `work` throws, which it must: a test that expects an error never passes on a success. */
function failureOf(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error("expected the statement to fail");
}

const mounted = (fs: SmallFilesystem | { unavailable: string }) => ("dir" in fs ? fs : undefined);
// Two small file systems of the test's own, where the machine lets it mount them: one to fill, one to make read-only.
const fullDisk = await mountSmallFilesystem(256 * 1024);
const readOnlyDisk = await mountSmallFilesystem(256 * 1024);
const scratch = mkdtempSync(join(tmpdir(), "pgw-sqlite-outage-"));
const opened: Database.Database[] = [];

afterAll(async () => {
  for (const db of opened) if (db.open) db.close();
  await mounted(fullDisk)?.close();
  await mounted(readOnlyDisk)?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A database file as the gateway opens one (WAL), with a table to fill. */
function gatewayLike(path: string, options: Database.Options = {}): Database.Database {
  const db = new Database(path, options);
  opened.push(db);
  if (!options.readonly) {
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE IF NOT EXISTS payloads (body BLOB)");
  }
  return db;
}

const payloads = sqliteTable("payloads", { body: blob("body") });
const fill = (db: Database.Database) => {
  const insert = db.prepare("INSERT INTO payloads VALUES (?)");
  for (let i = 0; i < 10_000; i++) insert.run(Buffer.alloc(4_000));
};

describe("isStoreOutage: better-sqlite3's errors, produced on real files", () => {
  const full = mounted(fullDisk);
  it(
    full
      ? "SQLITE_FULL: a disk that is full (a 256 KiB tmpfs the test mounted)"
      : `SQLITE_FULL: the page limit (PRAGMA max_page_count), since ${"unavailable" in fullDisk ? fullDisk.unavailable : ""}`,
    () => {
      const db = gatewayLike(join(full?.dir ?? scratch, "full.db"));
      // Without a small disk, a page limit is the one way to run out of room on demand: SQLite answers it the same.
      if (!full) db.pragma("max_page_count = 16");
      const error = failureOf(() => fill(db));
      expect((error as { code?: string }).code).toBe("SQLITE_FULL");
      expect(outageCause(error)).toMatchObject({ reason: "full", code: "SQLITE_FULL" });
      // Through drizzle, as the gateway's stores write.
      const through = failureOf(() =>
        drizzle(db)
          .insert(payloads)
          .values({ body: Buffer.alloc(64_000) })
          .run(),
      );
      expect(outageCause(through)?.code).toBe("SQLITE_FULL");
    },
  );

  it("SQLITE_READONLY: a database opened read-only (not chmod: root, as tests may run, writes through it)", () => {
    const path = join(scratch, "readonly.db");
    gatewayLike(path).close();
    const db = gatewayLike(path, { readonly: true });
    const error = failureOf(() => db.prepare("INSERT INTO payloads VALUES (x'00')").run());
    expect(outageCause(error)).toMatchObject({ reason: "read_only", code: "SQLITE_READONLY" });
  });

  it("SQLITE_READONLY_DBMOVED (an extended code): the file removed under an open connection", () => {
    const path = join(scratch, "moved.db");
    // A rollback journal: in WAL mode the write would go to the -wal file, which is still there.
    const db = new Database(path);
    opened.push(db);
    db.exec("CREATE TABLE payloads (body BLOB)");
    rmSync(path);
    const error = failureOf(() => db.prepare("INSERT INTO payloads VALUES (x'00')").run());
    expect(outageCause(error)).toMatchObject({ reason: "read_only", code: "SQLITE_READONLY_DBMOVED" });
  });

  const readOnly = mounted(readOnlyDisk);
  it.skipIf(!readOnly)(
    `a file system remounted read-only: SQLITE_READONLY (rollback journal), SQLITE_CANTOPEN (WAL)${
      "unavailable" in readOnlyDisk ? ` — skipped: ${readOnlyDisk.unavailable}` : ""
    }`,
    async () => {
      if (!readOnly) return;
      const journal = new Database(join(readOnly.dir, "journal.db"));
      journal.exec("CREATE TABLE payloads (body BLOB)");
      journal.close();
      gatewayLike(join(readOnly.dir, "wal.db")).close();
      await readOnly.readOnly();
      const write = failureOf(() =>
        gatewayLike(join(readOnly.dir, "journal.db")).prepare("INSERT INTO payloads VALUES (x'00')").run(),
      );
      expect(outageCause(write)).toMatchObject({ reason: "read_only", code: "SQLITE_READONLY" });
      // WAL needs its -shm file beside the database: on a read-only file system not even a read can open it.
      const read = failureOf(() =>
        new Database(join(readOnly.dir, "wal.db")).prepare("SELECT count(*) FROM payloads").get(),
      );
      expect(outageCause(read)).toMatchObject({ reason: "io_error", code: "SQLITE_CANTOPEN" });
    },
  );

  it("SQLITE_BUSY: another connection holds the write lock past the busy timeout", () => {
    const path = join(scratch, "busy.db");
    const holder = gatewayLike(path);
    const waiter = gatewayLike(path, { timeout: 50 });
    holder.exec("BEGIN IMMEDIATE");
    try {
      const error = failureOf(() => waiter.prepare("INSERT INTO payloads VALUES (x'00')").run());
      expect(outageCause(error)).toMatchObject({ reason: "overloaded", code: "SQLITE_BUSY" });
    } finally {
      holder.exec("ROLLBACK");
    }
    // The positive control: the same write passes once the lock is free.
    expect(waiter.prepare("INSERT INTO payloads VALUES (x'00')").run().changes).toBe(1);
  });

  it("SQLITE_CANTOPEN: a database file that is not there", () => {
    const error = failureOf(() => gatewayLike(join(scratch, "missing.db"), { fileMustExist: true }));
    expect(outageCause(error)).toMatchObject({ reason: "io_error", code: "SQLITE_CANTOPEN" });
  });

  describe("not outages: SQLite answered, the statement is wrong", () => {
    it("a unique constraint, a missing table, a datatype mismatch", () => {
      const db = gatewayLike(join(scratch, "wrong.db"));
      db.exec("CREATE TABLE unique_rows (id INTEGER PRIMARY KEY)");
      db.prepare("INSERT INTO unique_rows VALUES (1)").run();
      const errors = [
        failureOf(() => db.prepare("INSERT INTO unique_rows VALUES (1)").run()),
        failureOf(() => db.prepare("SELECT * FROM no_such_table").get()),
        failureOf(() => db.prepare("INSERT INTO unique_rows VALUES ('one')").run()),
      ];
      expect(errors.map((error) => (error as { code?: string }).code)).toEqual([
        "SQLITE_CONSTRAINT_PRIMARYKEY",
        "SQLITE_ERROR",
        "SQLITE_MISMATCH",
      ]);
      for (const error of errors) expect(isStoreOutage(error)).toBe(false);
    });

    it("a connection used after it was closed (a bug of the caller, not the disk)", () => {
      const db = gatewayLike(join(scratch, "closed.db"));
      db.close();
      const error = failureOf(() => db.prepare("SELECT 1").get());
      expect((error as Error).message).toMatch(/not open/);
      expect(isStoreOutage(error)).toBe(false);
    });
  });
});
