import type { TableCache } from "../../../db/table-cache.js";
import { rowOfCompany, rowsOfCompany, type StoreSql } from "../sql/store-sql.js";
import type { VendorKeyChange, VendorKeyRow } from "./row.js";

/** The vendor keys record as the capabilities use it (D-221): the type of its store (D-374). */
export type VendorKeyStore = Omit<ReturnType<typeof sqlVendorKeyStore>, "afterCommit">;

/**
 * The vendor keys record, once for both databases (D-275). Intake's `find` reads through the process's cache (`cache`,
 * shared with the stores bound to its transactions; D-247). Bound to a transaction the store reads uncached (it sees
 * the transaction's own writes and keeps nothing that may roll back); its writes empty the cache once it committed.
 */
export function sqlVendorKeyStore(sql: StoreSql, cache: TableCache<VendorKeyRow>) {
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
  /** A key read now, uncached (webhook fan-out reads the key of every settled submission). */
  const get = (id: string) => db.selectFrom("vendorKeys").selectAll().where("id", "=", id).executeTakeFirst();
  return {
    /**
     * The key of an intake request: cached, valid until this process or another changes the table (D-247). A hit is
     * answered synchronously (no promise on the hot path), a miss may be a promise.
     */
    find: (id: string) => (sql.inTransaction ? get(id) : cache.lookup(id, get)),
    get,
    getOfCompany: (id: string, companyId: string) => rowOfCompany(db, "vendorKeys", id, companyId),
    listOfCompany: (companyId: string) => rowsOfCompany(sql, "vendorKeys", companyId),
    insert: (row: VendorKeyRow) => changed(db.insertInto("vendorKeys").values(row)),
    update: (id: string, change: VendorKeyChange) =>
      changed(db.updateTable("vendorKeys").set(change).where("id", "=", id)),
    /** The keys mapping `kind` with one of these profile versions. */
    async boundTo(kind: "lead" | "appointment", versionIds: string[]) {
      if (versionIds.length === 0) return [];
      const column = kind === "lead" ? "leadProfileVersionId" : "appointmentProfileVersionId";
      const rows = await db.selectFrom("vendorKeys").select("id").where(column, "in", versionIds).execute();
      return rows.map((k) => k.id);
    },
    /** These keys map `kind` with `versionId` from now on (a rollback). */
    async rebind(kind: "lead" | "appointment", keyIds: string[], versionId: string) {
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
