import type { MaybePromise } from "../maybe.js";
import type { ConnectionChange, ConnectionRow, NewConnection, ProofFailureMinute } from "./row.js";

/** The hook connections record as the capabilities use it (D-221). */
export interface ConnectionStore {
  /**
   * The connection a hook request's token names, by the token's digest (current, or previous during a rotation's
   * overlap): cached like intake's vendor keys, valid until this process or another changes the table.
   */
  findByToken(tokenDigest: string): MaybePromise<ConnectionRow | undefined>;
  get(id: string): Promise<ConnectionRow | undefined>;
  getOfCompany(id: string, companyId: string): Promise<ConnectionRow | undefined>;
  /** The connection of a vendor key (a submission's connection). */
  ofVendorKey(vendorKeyId: string): Promise<ConnectionRow | undefined>;
  listOfCompany(companyId: string): Promise<ConnectionRow[]>;
  insert(row: NewConnection): Promise<void>;
  update(id: string, change: ConnectionChange): Promise<void>;
  /**
   * Adds `count` refused proofs to a connection's counter, with the last one's time and reason, and to its minute of
   * `lastAt` (D-349), in one transaction; minutes past the longest window are deleted.
   */
  addProofFailures(id: string, count: number, lastAt: string, lastReason: string): Promise<void>;
  /** A company's refused proofs per connection and minute, from `sinceMinute` (epoch ms / 60 000) on. */
  proofFailureMinutes(companyId: string, sinceMinute: number): Promise<ProofFailureMinute[]>;
}
