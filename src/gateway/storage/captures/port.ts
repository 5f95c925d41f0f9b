import type { CapturedPayloadRow } from "./row.js";

/** The captured payloads record as the capabilities use it (D-315..D-317). */
export interface CaptureStore {
  /** Stores one payload and drops the key's oldest past `keep` (D-316), in one transaction. */
  capture(row: CapturedPayloadRow, keep: number): Promise<void>;
  /** One of a key's captures (the vendor asks after what it sent). */
  getOfKey(id: string, vendorKeyId: string): Promise<CapturedPayloadRow | undefined>;
  /** A key's captures, newest first (another company's key has none). */
  listOfKey(vendorKeyId: string, companyId: string, limit: number): Promise<CapturedPayloadRow[]>;
  /** Drops a key's captures (the owner is done with them). */
  clearOfKey(vendorKeyId: string, companyId: string): Promise<number>;
  /** Drops a company's captures whose payload `mentions` the person (an erasure, D-317); how many. */
  eraseMentioning(companyId: string, mentions: (text: string) => boolean): Promise<number>;
  /** Drops every capture made before `cutoffMs` (retention, D-317); how many. */
  purgeBefore(cutoffMs: number): Promise<number>;
}
