import { setTimeout as delay } from "node:timers/promises";
import { sql } from "kysely";
import type { Sql } from "./database.js";
import type { StoreSql } from "./store-sql.js";

/** How long an erasure keeps trying to empty the WAL past another connection's checkpoint or read, and how often. */
const TRUNCATE_PATIENCE_MS = 3_000;
const TRUNCATE_RETRY_MS = 20;

/**
 * Once an erasure has committed: leaves no page of the database holding an earlier version of what it erased from a
 * record's `tables` (D-241, D-257). What that takes differs by nature between the two databases: SQLite's WAL
 * checkpointed and truncated (with `secure_delete` on, the file then holds no trace) — the whole file's, so the store
 * asked (`truncateWal`) does it for every record; PostgreSQL's dead row versions, and their TOASTed payloads, removed
 * by VACUUM of the tables. Neither can run inside a transaction.
 */
export async function compactAfterErasure(
  store: StoreSql,
  tables: readonly string[],
  sqlite: "truncateWal" | "nothing",
): Promise<boolean> {
  if (store.inTransaction) throw new Error("compactAfterErasure runs after the erasure's transaction has committed");
  if (store.dialect === "postgres") return vacuum(store.db, tables);
  return sqlite === "truncateWal" ? truncateWal(store.db) : true;
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
 * VACUUM of a record's tables, so that no row version — live or dead — holds the erased data any more (D-241). It
 * cannot run in a transaction block: it runs on a connection of its own, without the pool's statement timeout (a large
 * table takes long; it blocks no reader or writer, only another VACUUM or DDL of the table). What it does not do (zero
 * freed space, WAL, backups) is in D-241.
 */
async function vacuum(db: Sql, tables: readonly string[]): Promise<boolean> {
  await db.connection().execute(async (connection) => {
    await sql`set statement_timeout = 0`.execute(connection);
    try {
      await sql.raw(`vacuum ${tables.join(", ")}`).execute(connection);
    } finally {
      await sql`reset statement_timeout`.execute(connection);
    }
  });
  return true;
}
