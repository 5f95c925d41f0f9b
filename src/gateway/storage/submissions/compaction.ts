import { setTimeout as delay } from "node:timers/promises";
import { sql } from "kysely";
import type { Sql } from "../sql/database.js";
import type { StoreSql } from "../sql/store-sql.js";

/** How long an erasure keeps trying to empty the WAL past another connection's checkpoint or read, and how often. */
const TRUNCATE_PATIENCE_MS = 3_000;
const TRUNCATE_RETRY_MS = 20;

/**
 * Once an erasure has committed: leaves no page of the database holding an earlier version of what it erased (D-241).
 * What that takes differs by nature between the two databases: SQLite's WAL checkpointed and truncated (with
 * `secure_delete` on, the file then holds no trace); PostgreSQL's dead row versions, and their TOASTed payloads,
 * removed by VACUUM. Neither can run inside a transaction.
 */
export async function compactAfterErasure(store: StoreSql): Promise<boolean> {
  if (store.inTransaction) throw new Error("compactAfterErasure runs after the erasure's transaction has committed");
  return store.dialect === "sqlite" ? truncateWal(store.db) : vacuum(store.db);
}

/**
 * Every WAL frame copied into the database file and the WAL truncated to nothing: the frames hold earlier versions of
 * the pages written since the last reset, erased data included. The checkpointer thread's own PASSIVE checkpoint, or
 * a read on its connection, makes a TRUNCATE answer busy at once (SQLite runs one checkpoint at a time): it is tried
 * again for a while before the erasure says so (false; the next full checkpoint finishes it).
 */
async function truncateWal(db: Sql): Promise<boolean> {
  const deadline = Date.now() + TRUNCATE_PATIENCE_MS;
  for (;;) {
    const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    if (rows[0]?.busy === 0) return true;
    if (Date.now() >= deadline) return false;
    await delay(TRUNCATE_RETRY_MS);
  }
}

/**
 * VACUUM of this record's tables, so that no row version — live or dead — holds the erased data any more (D-241). It
 * cannot run in a transaction block: it runs on a connection of its own, without the pool's statement timeout (a large
 * table takes long; it blocks no reader or writer, only another VACUUM or DDL of the table).
 */
async function vacuum(db: Sql): Promise<boolean> {
  await db.connection().execute(async (connection) => {
    await sql`set statement_timeout = 0`.execute(connection);
    try {
      await sql`vacuum submissions, mapping_failures`.execute(connection);
    } finally {
      await sql`reset statement_timeout`.execute(connection);
    }
  });
  return true;
}
