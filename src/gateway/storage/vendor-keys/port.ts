import type { MaybePromise } from "../maybe.js";
import type { VendorKeyChange, VendorKeyRow } from "./row.js";

/**
 * The vendor keys record as the capabilities use it (D-221). `find` is intake's cached lookup: a hit is answered
 * synchronously (no promise on the hot path), a miss may be a promise.
 */
export interface VendorKeyStore {
  /** The key of an intake request: cached, valid until this process or another changes the table (D-247). */
  find(id: string): MaybePromise<VendorKeyRow | undefined>;
  /** A key read now, uncached (webhook fan-out reads the key of every settled submission). */
  get(id: string): Promise<VendorKeyRow | undefined>;
  /** One of a company's keys (another company's is not found). */
  getOfCompany(id: string, companyId: string): Promise<VendorKeyRow | undefined>;
  /** A company's keys in the order they were issued (D-251). */
  listOfCompany(companyId: string): Promise<VendorKeyRow[]>;
  insert(row: VendorKeyRow): Promise<void>;
  update(id: string, change: VendorKeyChange): Promise<void>;
  /** The keys mapping `kind` with one of these profile versions. */
  boundTo(kind: "lead" | "appointment", versionIds: string[]): Promise<string[]>;
  /** These keys map `kind` with `versionId` from now on (a rollback). */
  rebind(kind: "lead" | "appointment", keyIds: string[], versionId: string): Promise<void>;
}
