import { bigint, pgTable, text } from "drizzle-orm/pg-core";

/**
 * PostgreSQL only (no SQLite twin: there `PRAGMA data_version` and a temporary trigger tell a cache that a table
 * changed, db/table-cache.ts): a change counter per cached table, bumped by a statement trigger on that table in the
 * transaction of the change, and read by each process's cache every 250 ms (docs/decisions.md, D-247).
 */
export const tableVersions = pgTable("table_versions", {
  /** The cached table's name (`vendor_keys`). */
  name: text("name").primaryKey(),
  /** Bumped by every statement that inserts, updates, deletes or truncates the table's rows. */
  version: bigint("version", { mode: "number" }).notNull().default(0),
});
