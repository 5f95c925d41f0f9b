import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export type SqliteDatabase = Database.Database;

/**
 * Opens a SQLite database the way every part of the project uses it: WAL (readers never block the writer),
 * synchronous=NORMAL (a commit survives a process crash; a power cut may lose the last transactions), foreign keys
 * enforced, and a busy timeout so a second process waits instead of failing.
 */
export function openSqlite(path: string): SqliteDatabase {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  return db;
}
