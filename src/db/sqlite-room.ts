import { accessSync, constants, statfsSync } from "node:fs";
import { dirname } from "node:path";

/** Below this much free space the database's next commits may fail (its WAL grows by pages): readiness says full. */
export const SQLITE_MIN_FREE_BYTES = 256 * 1024;

/**
 * Whether a SQLite file can take writes now (readiness, D-333: `select 1` answers on a full or read-only one): throws
 * an error with the code a write would meet (SQLITE_READONLY, SQLITE_FULL), so it is classified as that outage.
 */
export function checkSqliteRoom(path: string): void {
  if (path === ":memory:" || path === "") return;
  try {
    accessSync(path, constants.W_OK);
    accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    const code = (error as { code?: string }).code ?? "EACCES";
    throw Object.assign(new Error(`the database file cannot be written (${code})`), { code: "SQLITE_READONLY" });
  }
  const fs = statfsSync(dirname(path));
  const free = fs.bavail * fs.bsize;
  if (free < SQLITE_MIN_FREE_BYTES) {
    throw Object.assign(new Error(`the database's file system is full (${free} bytes free)`), { code: "SQLITE_FULL" });
  }
}
