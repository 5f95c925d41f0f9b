import { setTimeout as delay } from "node:timers/promises";
import { sql } from "kysely";
import type { Sql } from "./database.js";
import type { StoreSql } from "./store-sql.js";

/** How long an erasure keeps trying to empty the WAL past another connection's checkpoint or read, and how often. */
const TRUNCATE_PATIENCE_MS = 3_000;
const TRUNCATE_RETRY_MS = 20;

/**
 * Once an erasure has committed: leaves no page of the database holding an earlier version of what it erased from a
 * record's `tables` (D-241, D-257): SQLite's WAL truncated (the whole file's, so only the store asked `truncateWal`
 * does it), PostgreSQL's tables vacuumed. Neither can run inside a transaction.
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
 * Every WAL frame copied into the database file and the WAL truncated to nothing. The checkpointer thread's own
 * checkpoint, or a read, makes it answer busy: tried again for a while, then false (the next full checkpoint does it).
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
 * VACUUM of a record's tables (D-241), on a connection of its own and without the pool's statement timeout: a large
 * table takes long, and it blocks no reader or writer.
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
