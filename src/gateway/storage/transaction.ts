import type { SqliteDatabase } from "../../db/sqlite.js";

/**
 * One transaction across records' storage modules: the statements every module runs inside `work` commit together
 * (an outcome and the webhooks it owes; a platform event and its fan-out). `immediate` takes the write lock at the
 * start, for work that reads before it writes while other processes may write. On SQLite a call nested in another
 * is a savepoint; a PostgreSQL implementation gives the modules the transaction's connection instead.
 */
export type Transaction = <T>(work: () => T, mode?: "deferred" | "immediate") => T;

export function sqliteTransaction(sqlite: SqliteDatabase): Transaction {
  return (work, mode = "deferred") => {
    const run = sqlite.transaction(work);
    return mode === "immediate" ? run.immediate() : run();
  };
}
