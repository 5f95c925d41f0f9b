import { and, eq, inArray } from "drizzle-orm";
import { rowReader } from "../../../db/row-reader.js";
import { vendorKeys } from "../../../db/schema/index.js";
import { tableCache } from "../../../db/table-cache.js";
import type { StorageHandles } from "../handles.js";

/** A vendor key as stored: its secret only as a digest (and the previous one's, during a rotation's overlap). */
export type VendorKeyRow = typeof vendorKeys.$inferSelect;
export type { PartnerType, VendorScope } from "../../../db/schema/vendor-keys.js";

/** What may change of a key after it is issued. */
export type VendorKeyChange = Partial<Omit<VendorKeyRow, "id" | "companyId" | "createdAt">>;

/**
 * The vendor keys record: every statement on vendor_keys is here. Intake looks a key up on every request (`find`,
 * cached until the table changes: db/table-cache.ts); the owner's API issues, rotates, rebinds and revokes them.
 * Synchronous on SQLite; on PostgreSQL the cached `find` stays synchronous on a hit (the cache is this process's),
 * the rest becomes promises.
 */
export class VendorKeyStore {
  readonly #db: StorageHandles["db"];
  readonly #find: (id: string) => VendorKeyRow | undefined;
  readonly #read: (id: string) => VendorKeyRow | undefined;

  constructor(handles: StorageHandles) {
    this.#db = handles.db;
    this.#read = rowReader(handles.sqlite, vendorKeys);
    this.#find = tableCache(handles.sqlite, "vendor_keys", this.#read);
  }

  /** The key of an intake request: cached, valid until this process or another changes the table (100 ms). */
  find(id: string): VendorKeyRow | undefined {
    return this.#find(id);
  }

  /** A key read now, uncached (a prepared statement: webhook fan-out reads the key of every settled submission). */
  get(id: string): VendorKeyRow | undefined {
    return this.#read(id);
  }

  /** One of a company's keys (another company's is not found). */
  getOfCompany(id: string, companyId: string): VendorKeyRow | undefined {
    return this.#db
      .select()
      .from(vendorKeys)
      .where(and(eq(vendorKeys.id, id), eq(vendorKeys.companyId, companyId)))
      .get();
  }

  listOfCompany(companyId: string): VendorKeyRow[] {
    return this.#db.select().from(vendorKeys).where(eq(vendorKeys.companyId, companyId)).all();
  }

  insert(row: VendorKeyRow): void {
    this.#db.insert(vendorKeys).values(row).run();
  }

  update(id: string, change: VendorKeyChange): void {
    this.#db.update(vendorKeys).set(change).where(eq(vendorKeys.id, id)).run();
  }

  /** The keys mapping `kind` with one of these profile versions. */
  boundTo(kind: "lead" | "appointment", versionIds: string[]): string[] {
    const column = kind === "lead" ? vendorKeys.leadProfileVersionId : vendorKeys.appointmentProfileVersionId;
    return this.#db
      .select({ id: vendorKeys.id })
      .from(vendorKeys)
      .where(inArray(column, versionIds))
      .all()
      .map((k) => k.id);
  }

  /** These keys map `kind` with `versionId` from now on (a rollback). */
  rebind(kind: "lead" | "appointment", keyIds: string[], versionId: string): void {
    if (keyIds.length === 0) return;
    const set = kind === "lead" ? { leadProfileVersionId: versionId } : { appointmentProfileVersionId: versionId };
    this.#db.update(vendorKeys).set(set).where(inArray(vendorKeys.id, keyIds)).run();
  }
}
