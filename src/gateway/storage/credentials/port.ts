import type { CredentialChange, NewUpstreamCredential, UpstreamCredentialRow } from "./row.js";

/** The upstream credentials record as the capabilities use it (D-221). */
export interface UpstreamCredentialStore {
  get(id: string): Promise<UpstreamCredentialRow | undefined>;
  /** One of a company's credentials (another company's is not found). */
  getOfCompany(id: string, companyId: string): Promise<UpstreamCredentialRow | undefined>;
  /** A company's credential by its name (the config file names them). */
  findByName(companyId: string, name: string): Promise<UpstreamCredentialRow | undefined>;
  /** A company's credentials in the order they were created (D-251). */
  listOfCompany(companyId: string): Promise<UpstreamCredentialRow[]>;
  /** Every company's credentials (linking the embedded sandbox at start), in the same order. */
  listAll(): Promise<UpstreamCredentialRow[]>;
  /** The ids of the credentials forwarding may send with now. */
  activeIds(): Promise<string[]>;
  /** Credentials not active (paused: refused by the platform), with the reason (`id`: that one only, if so). */
  inactive(id?: string): Promise<{ id: string; reason: string }[]>;
  insert(row: NewUpstreamCredential): Promise<void>;
  update(id: string, change: CredentialChange): Promise<void>;
  /**
   * Pauses a credential refused with its key `version`. False (nothing changed) when the credential was rotated since
   * that key was sent: a late 401 of the old key says nothing about the new one.
   */
  pause(id: string, reason: string, version: number): Promise<boolean>;
}
