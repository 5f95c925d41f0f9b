import { closeSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkSqliteRoom } from "../../../src/db/sqlite-room.js";
import { outageCause } from "../../../src/gateway/outage/index.js";
import { mountSmallFilesystem } from "../../helpers/small-filesystem.js";

/**
 * D-333: readiness on SQLite looks at whether the file could take a write — `select 1` answers on a full disk and on
 * a read-only file alike. On small file systems of the test's own, one filled and one remounted read-only.
 */

const full = await mountSmallFilesystem(1024 * 1024);
const readOnly = await mountSmallFilesystem(1024 * 1024);
const mounted = (fs: typeof full) => ("dir" in fs ? fs : undefined);
const why = (fs: typeof full) => ("unavailable" in fs ? ` — skipped: ${fs.unavailable}` : "");

afterAll(async () => {
  await mounted(full)?.close();
  await mounted(readOnly)?.close();
});

function failureOf(work: () => void): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error("expected it to fail");
}

describe("the room a SQLite file has for writes", () => {
  it.skipIf(!mounted(full))(
    `a full file system is SQLITE_FULL, and room again once a file is removed${why(full)}`,
    () => {
      const fs = mounted(full);
      if (!fs) throw new Error("mounted");
      const path = join(fs.dir, "gateway.db");
      writeFileSync(path, "");
      // Positive control: room before.
      expect(() => checkSqliteRoom(path)).not.toThrow();
      const filler = join(fs.dir, "filler");
      const fd = openSync(filler, "w");
      try {
        for (;;) writeSync(fd, Buffer.alloc(64 * 1024));
      } catch (error) {
        if ((error as { code?: string }).code !== "ENOSPC") throw error;
      } finally {
        closeSync(fd);
      }
      const error = failureOf(() => checkSqliteRoom(path));
      expect(outageCause(error)).toMatchObject({ reason: "full", code: "SQLITE_FULL" });
      rmSync(filler);
      expect(() => checkSqliteRoom(path)).not.toThrow();
    },
  );

  it.skipIf(!mounted(readOnly))(`a file system remounted read-only is SQLITE_READONLY${why(readOnly)}`, async () => {
    const fs = mounted(readOnly);
    if (!fs) throw new Error("mounted");
    const path = join(fs.dir, "gateway.db");
    writeFileSync(path, "");
    expect(() => checkSqliteRoom(path)).not.toThrow();
    await fs.readOnly();
    const error = failureOf(() => checkSqliteRoom(path));
    expect(outageCause(error)).toMatchObject({ reason: "read_only", code: "SQLITE_READONLY" });
  });

  it("an in-memory database always has room", () => {
    expect(() => checkSqliteRoom(":memory:")).not.toThrow();
  });
});
