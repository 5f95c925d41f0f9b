import type { CompanyRow, NewOwnerToken, OwnerRow, OwnerTokenRow } from "./row.js";

/** An owner's bearer token as listed (never its digest). */
export interface OwnerTokenSummary {
  id: string;
  name: string | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** The tenants record as the capabilities use it (D-221): companies, owners, their sessions and tokens. */
export interface TenantStore {
  /** Every company's id (a purge walks other records per company on their company indexes). */
  companyIds(): Promise<string[]>;
  getCompany(id: string): Promise<CompanyRow | undefined>;
  insertCompany(row: CompanyRow): Promise<void>;
  updateCompany(id: string, change: Pick<CompanyRow, "name" | "limits">): Promise<void>;
  /** A company's own upstream limits (§8 levels it set lower), or null. */
  companyLimits(id: string): Promise<CompanyRow["limits"] | null>;
  ownerByEmail(email: string): Promise<OwnerRow | undefined>;
  insertOwner(row: OwnerRow): Promise<void>;
  /**
   * Updates an owner; `endSessions`: and ends its sessions (its password changed), in one transaction (D-250). Bearer
   * tokens stay: they are credentials of their own (docs/decisions.md, "Owner sign-in").
   */
  updateOwner(
    id: string,
    change: Partial<Pick<OwnerRow, "name" | "role" | "passwordHash">>,
    endSessions?: Date,
  ): Promise<void>;
  /** A rehashed password, only if unchanged meanwhile (a config file applied a new one during a sign-in). */
  rehashPassword(id: string, was: string, passwordHash: string): Promise<void>;
  insertToken(row: NewOwnerToken): Promise<void>;
  /** The session or token with this digest, and its owner: read now, on every request (D-250). */
  tokenWithOwner(tokenDigest: string): Promise<{ token: OwnerTokenRow; owner: OwnerRow } | undefined>;
  touchToken(id: string, at: string): Promise<void>;
  /** An owner's bearer tokens not revoked, newest first (ids compared bytewise: D-251). */
  tokensOf(ownerId: string): Promise<OwnerTokenSummary[]>;
  /** Revokes one of the owner's sessions or tokens; false when it has none by that id (or it is revoked already). */
  revokeToken(id: string, ownerId: string, at: string): Promise<boolean>;
}
