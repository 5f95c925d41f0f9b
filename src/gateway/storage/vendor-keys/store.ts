import type { TableCache } from "../../../db/table-cache.js";
import type { MaybePromise } from "../maybe.js";
import { rowOfCompany, rowsOfCompany, type StoreSql } from "../sql/store-sql.js";
import type { VendorKeyStore } from "./port.js";
import type { VendorKeyChange, VendorKeyRow } from "./row.js";

/**
 * The vendor keys record: every statement on vendor_keys is here, once for both databases (D-275). Intake looks a key
 * up on every request (`find`): answered from this process's cache synchronously on a hit, read on a miss; the cache
 * holds until this process or any other changes the table (db/table-cache.ts on SQLite, db/pg-table-cache.ts on
 * PostgreSQL: D-247), so a revoked key is refused by every process within a second. The owner's API issues, rotates,
 * rebinds and revokes keys.
 *
 * Bound to a transaction (`tx.vendorKeys`) the store reads through the transaction, uncached (it sees the
 * transaction's own writes, and keeps nothing that may roll back); its writes empty the shared cache once the
 * transaction committed (`afterCommit`, called by the storage's transaction).
 */
export class SqlVendorKeyStore implements VendorKeyStore {
  readonly #sql: StoreSql;
  readonly #cache: TableCache<VendorKeyRow>;
  /** Bound to a transaction: it wrote the table (the cache is emptied when it commits). */
  #wrote = false;
  readonly #load = (id: string) => this.get(id);

  /** `cache`: the process's key cache, shared with the stores bound to its transactions. */
  constructor(sql: StoreSql, cache: TableCache<VendorKeyRow>) {
    this.#sql = sql;
    this.#cache = cache;
  }

  /** The key of an intake request: cached, valid until this process or another changes the table (D-247). */
  find(id: string): MaybePromise<VendorKeyRow | undefined> {
    if (this.#sql.inTransaction) return this.get(id);
    return this.#cache.lookup(id, this.#load);
  }

  /** A key read now, uncached (webhook fan-out reads the key of every settled submission). */
  get(id: string): Promise<VendorKeyRow | undefined> {
    return this.#sql.db.selectFrom("vendorKeys").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** One of a company's keys (another company's is not found). */
  getOfCompany(id: string, companyId: string): Promise<VendorKeyRow | undefined> {
    return rowOfCompany(this.#sql.db, "vendorKeys", id, companyId);
  }

  /** A company's keys in the order they were issued (D-251). */
  listOfCompany(companyId: string): Promise<VendorKeyRow[]> {
    return rowsOfCompany(this.#sql, "vendorKeys", companyId);
  }

  async insert(row: VendorKeyRow): Promise<void> {
    await this.#sql.db.insertInto("vendorKeys").values(row).execute();
    this.#changed();
  }

  async update(id: string, change: VendorKeyChange): Promise<void> {
    await this.#sql.db.updateTable("vendorKeys").set(change).where("id", "=", id).execute();
    this.#changed();
  }

  /** The keys mapping `kind` with one of these profile versions. */
  async boundTo(kind: "lead" | "appointment", versionIds: string[]): Promise<string[]> {
    if (versionIds.length === 0) return [];
    const column = kind === "lead" ? "leadProfileVersionId" : "appointmentProfileVersionId";
    const rows = await this.#sql.db.selectFrom("vendorKeys").select("id").where(column, "in", versionIds).execute();
    return rows.map((k) => k.id);
  }

  /** These keys map `kind` with `versionId` from now on (a rollback). */
  async rebind(kind: "lead" | "appointment", keyIds: string[], versionId: string): Promise<void> {
    if (keyIds.length === 0) return;
    const set = kind === "lead" ? { leadProfileVersionId: versionId } : { appointmentProfileVersionId: versionId };
    await this.#sql.db.updateTable("vendorKeys").set(set).where("id", "in", keyIds).execute();
    this.#changed();
  }

  /** The transaction this store is bound to committed: its writes hold in this process's cache from now on. */
  afterCommit(): void {
    if (this.#wrote) this.#cache.invalidate();
    this.#wrote = false;
  }

  /**
   * This process changed the table: outside a transaction the change has committed, and the cache empties now; in a
   * transaction it empties when the transaction commits (before, a lookup would read and keep the row as it was).
   */
  #changed(): void {
    if (this.#sql.inTransaction) this.#wrote = true;
    else this.#cache.invalidate();
  }
}
