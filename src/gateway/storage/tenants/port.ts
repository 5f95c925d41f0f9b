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
  companyIds(): Promise<string[]>;
  getCompany(id: string): Promise<CompanyRow | undefined>;
  insertCompany(row: CompanyRow): Promise<void>;
  updateCompany(id: string, change: Pick<CompanyRow, "name" | "limits">): Promise<void>;
  companyLimits(id: string): Promise<CompanyRow["limits"] | null>;
  ownerByEmail(email: string): Promise<OwnerRow | undefined>;
  insertOwner(row: OwnerRow): Promise<void>;
  /** Updates an owner; `endSessions`: and ends its sessions, in one transaction. */
  updateOwner(
    id: string,
    change: Partial<Pick<OwnerRow, "name" | "role" | "passwordHash">>,
    endSessions?: Date,
  ): Promise<void>;
  rehashPassword(id: string, was: string, passwordHash: string): Promise<void>;
  insertToken(row: NewOwnerToken): Promise<void>;
  tokenWithOwner(tokenDigest: string): Promise<{ token: OwnerTokenRow; owner: OwnerRow } | undefined>;
  touchToken(id: string, at: string): Promise<void>;
  tokensOf(ownerId: string): Promise<OwnerTokenSummary[]>;
  revokeToken(id: string, ownerId: string, at: string): Promise<boolean>;
  revokeSessions(ownerId: string, now: Date): Promise<void>;
}
