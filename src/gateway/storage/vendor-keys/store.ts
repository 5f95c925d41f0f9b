import { and, eq, inArray } from "drizzle-orm";
import { rowReader } from "../../../db/row-reader.js";
import { vendorKeys } from "../../../db/schema/index.js";
import { tableCache } from "../../../db/table-cache.js";
import type { StorageHandles } from "../handles.js";
import type { GateView } from "../sqlite-gate.js";
import type { VendorKeyStore } from "./port.js";

/** A vendor key as stored: its secret only as a digest (and the previous one's, during a rotation's overlap). */
export type VendorKeyRow = typeof vendorKeys.$inferSelect;
export type { PartnerType, VendorScope } from "../../../db/schema/vendor-keys.js";

/** What may change of a key after it is issued. */
export type VendorKeyChange = Partial<Omit<VendorKeyRow, "id" | "companyId" | "createdAt">>;

/**
 * The vendor keys record: every statement on vendor_keys is here. Intake looks a key up on every request (`find`,
 * cached until the table changes: db/table-cache.ts); the owner's API issues, rotates, rebinds and revokes them.
 * The SQLite implementation of port.ts (D-221): every method waits at the connection's gate while an
 * asynchronous transaction holds it (sqlite-gate.ts, D-222), and otherwise runs on the calling thread at once.
 */
export class SqliteVendorKeyStore implements VendorKeyStore {
  readonly #db: StorageHandles["db"];
  readonly #find: (id: string) => VendorKeyRow | undefined;
  readonly #read: (id: string) => VendorKeyRow | undefined;

  readonly #gate: GateView;

  constructor(handles: StorageHandles) {
    this.#gate = handles.gate;
    this.#db = handles.db;
    this.#read = rowReader(handles.sqlite, vendorKeys);
    this.#find = tableCache(handles.sqlite, "vendor_keys", this.#read);
  }

  /**
   * The key of an intake request: cached, valid until this process or another changes the table (100 ms). Answered
   * synchronously (SQLite reads a miss on the spot too), unless an asynchronous transaction holds the connection.
   */
  find(id: string): VendorKeyRow | undefined | Promise<VendorKeyRow | undefined> {
    if (this.#gate.busy) return this.#gate.pass().then(() => this.find(id));
    return this.#find(id);
  }

  /** A key read now, uncached (a prepared statement: webhook fan-out reads the key of every settled submission). */
  async get(id: string): Promise<VendorKeyRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#read(id);
  }

  /** One of a company's keys (another company's is not found). */
  async getOfCompany(id: string, companyId: string): Promise<VendorKeyRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(vendorKeys)
      .where(and(eq(vendorKeys.id, id), eq(vendorKeys.companyId, companyId)))
      .get();
  }

  async listOfCompany(companyId: string): Promise<VendorKeyRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db.select().from(vendorKeys).where(eq(vendorKeys.companyId, companyId)).all();
  }

  async insert(row: VendorKeyRow): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.insert(vendorKeys).values(row).run();
  }

  async update(id: string, change: VendorKeyChange): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.update(vendorKeys).set(change).where(eq(vendorKeys.id, id)).run();
  }

  /** The keys mapping `kind` with one of these profile versions. */
  async boundTo(kind: "lead" | "appointment", versionIds: string[]): Promise<string[]> {
    while (this.#gate.busy) await this.#gate.pass();
    const column = kind === "lead" ? vendorKeys.leadProfileVersionId : vendorKeys.appointmentProfileVersionId;
    return this.#db
      .select({ id: vendorKeys.id })
      .from(vendorKeys)
      .where(inArray(column, versionIds))
      .all()
      .map((k) => k.id);
  }

  /** These keys map `kind` with `versionId` from now on (a rollback). */
  async rebind(kind: "lead" | "appointment", keyIds: string[], versionId: string): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    if (keyIds.length === 0) return;
    const set = kind === "lead" ? { leadProfileVersionId: versionId } : { appointmentProfileVersionId: versionId };
    this.#db.update(vendorKeys).set(set).where(inArray(vendorKeys.id, keyIds)).run();
  }
}
