import type { Sql } from "../sql/database.js";
import { byBytes, type StoreSql } from "../sql/store-sql.js";
import type { OwnerTokenSummary, TenantStore } from "./port.js";
import type { CompanyRow, NewOwnerToken, OwnerRow, OwnerTokenRow } from "./row.js";

/**
 * The tenants record — companies, their owners, and the owners' sessions and bearer tokens: every statement on their
 * tables is here, once for both databases (D-275). The owner API signs in, authenticates each request
 * (`tokenWithOwner`), and manages tokens; forwarding reads a company's own limits. Sessions and tokens are read on
 * every request, never cached: a revoked one is refused by every process at once (D-250).
 */
export class SqlTenantStore implements TenantStore {
  readonly #sql: StoreSql;

  constructor(sql: StoreSql) {
    this.#sql = sql;
  }

  /** Every company's id (a purge walks other records per company on their company indexes). */
  async companyIds(): Promise<string[]> {
    const rows = await this.#sql.db.selectFrom("companies").select("id").orderBy(byBytes(this.#sql, "id")).execute();
    return rows.map((row) => row.id);
  }

  getCompany(id: string): Promise<CompanyRow | undefined> {
    return this.#sql.db.selectFrom("companies").selectAll().where("id", "=", id).executeTakeFirst();
  }

  async insertCompany(row: CompanyRow): Promise<void> {
    await this.#sql.db.insertInto("companies").values(row).execute();
  }

  async updateCompany(id: string, change: Pick<CompanyRow, "name" | "limits">): Promise<void> {
    await this.#sql.db.updateTable("companies").set(change).where("id", "=", id).execute();
  }

  /** A company's own upstream limits (§8 levels it set lower), or null. */
  async companyLimits(id: string): Promise<CompanyRow["limits"] | null> {
    const row = await this.#sql.db.selectFrom("companies").select("limits").where("id", "=", id).executeTakeFirst();
    return row?.limits ?? null;
  }

  ownerByEmail(email: string): Promise<OwnerRow | undefined> {
    return this.#sql.db.selectFrom("owners").selectAll().where("email", "=", email).executeTakeFirst();
  }

  async insertOwner(row: OwnerRow): Promise<void> {
    await this.#sql.db.insertInto("owners").values(row).execute();
  }

  /**
   * Updates an owner; `endSessions`: and ends its sessions (its password changed), in one transaction (D-250). Bearer
   * tokens stay: they are credentials of their own (docs/decisions.md, "Owner sign-in").
   */
  async updateOwner(
    id: string,
    change: Partial<Pick<OwnerRow, "name" | "role" | "passwordHash">>,
    endSessions?: Date,
  ): Promise<void> {
    const update = (db: Sql) => db.updateTable("owners").set(change).where("id", "=", id).execute();
    if (!endSessions) {
      await update(this.#sql.db);
      return;
    }
    await this.#sql.atomically(async (db) => {
      await update(db);
      await revokeSessions(db, id, endSessions);
    });
  }

  /** A rehashed password, only if unchanged meanwhile (a config file applied a new one during a sign-in). */
  async rehashPassword(id: string, was: string, passwordHash: string): Promise<void> {
    await this.#sql.db
      .updateTable("owners")
      .set({ passwordHash })
      .where("id", "=", id)
      .where("passwordHash", "=", was)
      .execute();
  }

  async insertToken(row: NewOwnerToken): Promise<void> {
    await this.#sql.db.insertInto("ownerTokens").values(row).execute();
  }

  /** The session or token with this digest, and its owner: read now, on every request (D-250). */
  async tokenWithOwner(tokenDigest: string): Promise<{ token: OwnerTokenRow; owner: OwnerRow } | undefined> {
    const row = await this.#sql.db
      .selectFrom("ownerTokens")
      .innerJoin("owners", "owners.id", "ownerTokens.ownerId")
      .selectAll("ownerTokens")
      // The owner's columns apart from the token's own (both have `name` and `createdAt`); its id is `ownerId`.
      .select([
        "owners.companyId as ownerCompanyId",
        "owners.email as ownerEmail",
        "owners.name as ownerName",
        "owners.role as ownerRole",
        "owners.passwordHash as ownerPasswordHash",
        "owners.createdAt as ownerCreatedAt",
      ])
      .where("ownerTokens.tokenDigest", "=", tokenDigest)
      .executeTakeFirst();
    if (!row) return undefined;
    const { ownerCompanyId, ownerEmail, ownerName, ownerRole, ownerPasswordHash, ownerCreatedAt, ...token } = row;
    return {
      token,
      owner: {
        id: token.ownerId,
        companyId: ownerCompanyId,
        email: ownerEmail,
        name: ownerName,
        role: ownerRole,
        passwordHash: ownerPasswordHash,
        createdAt: ownerCreatedAt,
      },
    };
  }

  async touchToken(id: string, at: string): Promise<void> {
    await this.#sql.db.updateTable("ownerTokens").set({ lastUsedAt: at }).where("id", "=", id).execute();
  }

  /** An owner's bearer tokens not revoked, newest first (ids compared bytewise: D-251). */
  tokensOf(ownerId: string): Promise<OwnerTokenSummary[]> {
    return this.#sql.db
      .selectFrom("ownerTokens")
      .select(["id", "name", "createdAt", "expiresAt", "lastUsedAt"])
      .where("ownerId", "=", ownerId)
      .where("kind", "=", "token")
      .where("revokedAt", "is", null)
      .orderBy(byBytes(this.#sql, "id"), "desc")
      .execute();
  }

  /** Revokes one of the owner's sessions or tokens; false when it has none by that id (or it is revoked already). */
  async revokeToken(id: string, ownerId: string, at: string): Promise<boolean> {
    const result = await this.#sql.db
      .updateTable("ownerTokens")
      .set({ revokedAt: at })
      .where("id", "=", id)
      .where("ownerId", "=", ownerId)
      .where("revokedAt", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows !== 0n;
  }

  /** Ends every session of an owner. */
  async revokeSessions(ownerId: string, now: Date): Promise<void> {
    await revokeSessions(this.#sql.db, ownerId, now);
  }
}

async function revokeSessions(db: Sql, ownerId: string, now: Date): Promise<void> {
  await db
    .updateTable("ownerTokens")
    .set({ revokedAt: now.toISOString() })
    .where("ownerId", "=", ownerId)
    .where("kind", "=", "session")
    .where("revokedAt", "is", null)
    .execute();
}
