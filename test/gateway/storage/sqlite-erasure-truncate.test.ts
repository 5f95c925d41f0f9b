import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Checkpointer, startCheckpointer } from "../../../src/db/checkpointer.js";
import { type GatewayDatabase, openGatewayDb } from "../../../src/db/client.js";
import { sqliteStorage } from "../../../src/gateway/storage/transaction.js";

/**
 * D-241: an erasure empties SQLite's WAL. The background checkpointer's own PASSIVE checkpoints run on another
 * connection, and SQLite runs one checkpoint at a time: a TRUNCATE that meets one is answered "busy" at once, without
 * waiting. The erasure must wait that out instead of reporting a WAL it could have emptied.
 */
describe("the erasure's WAL truncate beside the background checkpointer (D-241)", () => {
  let database: GatewayDatabase | undefined;
  let checkpointer: Checkpointer | undefined;
  afterEach(async () => {
    await checkpointer?.close();
    database?.close();
  });

  it("empties the WAL every time, even while the checkpointer thread is copying pages", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "pgw-truncate-")), "gateway.db");
    database = openGatewayDb(path);
    const storage = sqliteStorage(database);
    // A checkpoint every millisecond: the thread is inside one most of the time the WAL holds pages.
    checkpointer = startCheckpointer(database.sqlite, { intervalMs: 1 });
    database.sqlite.exec("create table ballast (id integer primary key, body text)");
    const insert = database.sqlite.prepare("insert into ballast (body) values (?)");
    const wal = `${path}-wal`;
    for (let round = 0; round < 20; round++) {
      database.sqlite.transaction(() => {
        for (let i = 0; i < 400; i++) insert.run("x".repeat(4_000));
      })();
      // Positive control: the WAL holds this round's pages before the erasure's truncate.
      expect(statSync(wal).size).toBeGreaterThan(1_000_000);
      // Time itself is the variable: 0-2 ms, so the truncate meets the 1 ms checkpointer at different points.
      await new Promise((resolve) => setTimeout(resolve, round % 3));
      expect(await storage.submissions.compactAfterErasure()).toBe(true);
      expect(statSync(wal).size).toBe(0);
    }
  }, 60_000);
});
