import type { CredentialChange, NewUpstreamCredential, UpstreamCredentialRow } from "./row.js";

/** The upstream credentials record as the capabilities use it (D-221). */
export interface UpstreamCredentialStore {
  get(id: string): Promise<UpstreamCredentialRow | undefined>;
  getOfCompany(id: string, companyId: string): Promise<UpstreamCredentialRow | undefined>;
  findByName(companyId: string, name: string): Promise<UpstreamCredentialRow | undefined>;
  listOfCompany(companyId: string): Promise<UpstreamCredentialRow[]>;
  listAll(): Promise<UpstreamCredentialRow[]>;
  /** The ids of the credentials forwarding may send with now. */
  activeIds(): Promise<string[]>;
  /** Credentials not active, with the reason (`id`: that one only, if so). */
  inactive(id?: string): Promise<{ id: string; reason: string }[]>;
  insert(row: NewUpstreamCredential): Promise<void>;
  update(id: string, change: CredentialChange): Promise<void>;
  /** Pauses a credential refused with its key `version`; false when it was rotated since. */
  pause(id: string, reason: string, version: number): Promise<boolean>;
}
