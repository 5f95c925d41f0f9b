import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startCheckpointer } from "../../../src/db/checkpointer.js";
import { openSqlite } from "../../../src/db/sqlite.js";
import { captureLog } from "../../helpers/log-capture.js";
import { mountSmallFilesystem } from "../../helpers/small-filesystem.js";

/**
 * D-332: the background checkpoint thread, which tries five times a second, logs a full disk once when its
 * checkpoints start failing and once when they work again — it used to warn at every try. On a tmpfs of the test's
 * own, filled by a file.
 */

const small = await mountSmallFilesystem(4 * 1024 * 1024);
const disk = "dir" in small ? small : undefined;

afterAll(async () => {
  await disk?.close();
});

describe.skipIf(!disk)(
  `the checkpoint thread on a full disk${"unavailable" in small ? ` — skipped: ${small.unavailable}` : ""}`,
  () => {
    it("logs the failing checkpoints once, and once when they work again", async () => {
      if (!disk) throw new Error("mounted");
      const { log, lines } = captureLog();
      const sqlite = openSqlite(join(disk.dir, "gateway.db"));
      sqlite.exec("CREATE TABLE payloads (body BLOB)");
      // Frames in the WAL that the checkpoint must copy into the (growing) database file.
      const checkpointer = startCheckpointer(sqlite, { intervalMs: 20, log });
      try {
        const filler = join(disk.dir, "filler");
        const insert = sqlite.prepare("INSERT INTO payloads VALUES (?)");
        sqlite.exec("BEGIN");
        for (let i = 0; i < 200; i++) insert.run(Buffer.alloc(4_000));
        sqlite.exec("COMMIT");
        const fd = openSync(filler, "w");
        try {
          for (;;) writeSync(fd, Buffer.alloc(64 * 1024));
        } catch (error) {
          if ((error as { code?: string }).code !== "ENOSPC") throw error;
        } finally {
          closeSync(fd);
        }
        // More frames the checkpoint cannot place while the disk is full (the WAL itself still has room or not).
        try {
          sqlite.exec("BEGIN");
          for (let i = 0; i < 200; i++) insert.run(Buffer.alloc(4_000));
          sqlite.exec("COMMIT");
        } catch {
          if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
        }
        const failing = () => lines.filter((l) => l.msg === "background WAL checkpoint failing");
        await expect.poll(() => failing().length, { timeout: 10_000 }).toBe(1);
        // Many tries meanwhile (every 20 ms): still one line.
        await expect.poll(() => checkpointer?.failedTries() ?? 0, { timeout: 10_000 }).toBeGreaterThanOrEqual(10);
        expect(failing()).toHaveLength(1);
        rmSync(filler);
        await expect
          .poll(() => lines.filter((l) => l.msg === "background WAL checkpoint works again").length, {
            timeout: 10_000,
          })
          .toBe(1);
        expect(failing()).toHaveLength(1);
        expect(
          lines.find((l) => l.msg === "background WAL checkpoint works again")?.failedTries,
        ).toBeGreaterThanOrEqual(10);
        expect(checkpointer?.failedTries()).toBe(0);
      } finally {
        await checkpointer?.close();
        sqlite.close();
      }
    });
  },
);
