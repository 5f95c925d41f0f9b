import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { PgTableCache } from "../../../db/pg-table-cache.js";
import type { GatewayPgDb } from "../../../db/postgres.js";
import { vendorKeys } from "../../../db/schema-pg/index.js";
import { type PgHandles, preparedOn } from "../pg-handles.js";
import type { VendorKeyStore } from "./port.js";
import type { VendorKeyChange, VendorKeyRow } from "./store.js";

/** Intake's key lookup on a miss, and webhook fan-out's read per settled submission: one named prepared statement. */
function byId(db: GatewayPgDb) {
  return db
    .select()
    .from(vendorKeys)
    .where(eq(vendorKeys.id, sql.placeholder("id")))
    .prepare("vendor_keys_by_id");
}

/**
 * The vendor keys record on PostgreSQL: every statement on vendor_keys is here (the twin of store.ts). Intake's `find`
 * is answered from this process's cache synchronously on a hit, read on a miss; the cache holds until this process or
 * any other changes the table (db/pg-table-cache.ts: the `table_versions` counter a trigger bumps, read every 250 ms;
 * docs/decisions.md, D-247), so a revoked key is refused by every process within a second.
 *
 * Bound to a transaction (`tx.vendorKeys`) the store reads through the transaction's client, uncached (it sees the
 * transaction's own writes, and keeps nothing that may roll back); its writes empty the shared cache once the
 * transaction committed (`afterCommit`, called by storage/postgres.ts).
 */
export class PostgresVendorKeyStore implements VendorKeyStore {
  readonly #handles: PgHandles;
  readonly #db: GatewayPgDb;
  readonly #cache: PgTableCache<VendorKeyRow> | undefined;
  /** Bound to a transaction: it wrote the table (the cache is emptied when it commits). */
  #wrote = false;
  readonly #load = (id: string) => this.get(id);

  /**
   * `cache`: the process's key cache, shared with the stores bound to its transactions. Without one, a store on the
   * pool makes its own (its timer starts at the first `find`; `close()` stops it).
   */
  constructor(handles: PgHandles, cache?: PgTableCache<VendorKeyRow>) {
    this.#handles = handles;
    this.#db = handles.db;
    this.#cache = cache ?? (handles.inTransaction ? undefined : new PgTableCache(handles.pool, "vendor_keys"));
  }

  /** The key of an intake request: cached, valid until this process or another changes the table (D-247). */
  find(id: string): VendorKeyRow | undefined | Promise<VendorKeyRow | undefined> {
    if (this.#handles.inTransaction || !this.#cache) return this.get(id);
    return this.#cache.lookup(id, this.#load);
  }

  /** A key read now, uncached. */
  async get(id: string): Promise<VendorKeyRow | undefined> {
    const [row] = await preparedOn(this.#db, byId).execute({ id });
    return row;
  }

  /** One of a company's keys (another company's is not found). */
  async getOfCompany(id: string, companyId: string): Promise<VendorKeyRow | undefined> {
    const [row] = await this.#db
      .select()
      .from(vendorKeys)
      .where(and(eq(vendorKeys.id, id), eq(vendorKeys.companyId, companyId)));
    return row;
  }

  /** A company's keys in the order they were issued (SQLite's order; docs/decisions.md, D-251). */
  async listOfCompany(companyId: string): Promise<VendorKeyRow[]> {
    return this.#db
      .select()
      .from(vendorKeys)
      .where(eq(vendorKeys.companyId, companyId))
      .orderBy(asc(vendorKeys.createdAt), sql`${vendorKeys.id} collate "C"`);
  }

  async insert(row: VendorKeyRow): Promise<void> {
    await this.#db.insert(vendorKeys).values(row);
    this.#changed();
  }

  async update(id: string, change: VendorKeyChange): Promise<void> {
    await this.#db.update(vendorKeys).set(change).where(eq(vendorKeys.id, id));
    this.#changed();
  }

  /** The keys mapping `kind` with one of these profile versions. */
  async boundTo(kind: "lead" | "appointment", versionIds: string[]): Promise<string[]> {
    if (versionIds.length === 0) return [];
    const column = kind === "lead" ? vendorKeys.leadProfileVersionId : vendorKeys.appointmentProfileVersionId;
    const rows = await this.#db.select({ id: vendorKeys.id }).from(vendorKeys).where(inArray(column, versionIds));
    return rows.map((k) => k.id);
  }

  /** These keys map `kind` with `versionId` from now on (a rollback). */
  async rebind(kind: "lead" | "appointment", keyIds: string[], versionId: string): Promise<void> {
    if (keyIds.length === 0) return;
    const set = kind === "lead" ? { leadProfileVersionId: versionId } : { appointmentProfileVersionId: versionId };
    await this.#db.update(vendorKeys).set(set).where(inArray(vendorKeys.id, keyIds));
    this.#changed();
  }

  /** The transaction this store is bound to committed: its writes hold in this process's cache from now on. */
  afterCommit(): void {
    if (this.#wrote) this.#cache?.invalidate();
    this.#wrote = false;
  }

  /** Stops the cache's timer (the process is closing its pool). */
  close(): void {
    this.#cache?.close();
  }

  /**
   * This process changed the table: on the pool the change has committed, and the cache empties now; in a transaction
   * it empties when the transaction commits (before, a lookup would read and keep the row as it was).
   */
  #changed(): void {
    if (this.#handles.inTransaction) this.#wrote = true;
    else this.#cache?.invalidate();
  }
}
