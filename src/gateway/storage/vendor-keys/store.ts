import type { TableCache } from "../../../db/table-cache.js";
import { rowOfCompany, rowsOfCompany, type StoreSql } from "../sql/store-sql.js";
import type { VendorKeyStore } from "./port.js";
import type { VendorKeyRow } from "./row.js";

/**
 * The vendor keys record, once for both databases (D-275). Intake's `find` reads through the process's cache (`cache`,
 * shared with the stores bound to its transactions; D-247). Bound to a transaction the store reads uncached (it sees
 * the transaction's own writes and keeps nothing that may roll back); its writes empty the cache once it committed.
 */
export function sqlVendorKeyStore(
  sql: StoreSql,
  cache: TableCache<VendorKeyRow>,
): VendorKeyStore & { afterCommit(): void } {
  const { db } = sql;
  /** Bound to a transaction: it wrote the table (the cache is emptied when it commits). */
  let wrote = false;
  // Outside a transaction the change has committed, and the cache empties now; in one it empties when the transaction
  // commits (before, a lookup would read and keep the row as it was).
  const changed = async (statement: { execute(): Promise<unknown> }) => {
    await statement.execute();
    if (sql.inTransaction) wrote = true;
    else cache.invalidate();
  };
  const get = (id: string) => db.selectFrom("vendorKeys").selectAll().where("id", "=", id).executeTakeFirst();
  return {
    find: (id) => (sql.inTransaction ? get(id) : cache.lookup(id, get)),
    get,
    getOfCompany: (id, companyId) => rowOfCompany(db, "vendorKeys", id, companyId),
    listOfCompany: (companyId) => rowsOfCompany(sql, "vendorKeys", companyId),
    insert: (row) => changed(db.insertInto("vendorKeys").values(row)),
    update: (id, change) => changed(db.updateTable("vendorKeys").set(change).where("id", "=", id)),
    async boundTo(kind, versionIds) {
      if (versionIds.length === 0) return [];
      const column = kind === "lead" ? "leadProfileVersionId" : "appointmentProfileVersionId";
      const rows = await db.selectFrom("vendorKeys").select("id").where(column, "in", versionIds).execute();
      return rows.map((k) => k.id);
    },
    async rebind(kind, keyIds, versionId) {
      if (keyIds.length === 0) return;
      const set = kind === "lead" ? { leadProfileVersionId: versionId } : { appointmentProfileVersionId: versionId };
      await changed(db.updateTable("vendorKeys").set(set).where("id", "in", keyIds));
    },
    /** The transaction this store is bound to committed: its writes hold in this process's cache from now on. */
    afterCommit() {
      if (wrote) cache.invalidate();
      wrote = false;
    },
  };
}
