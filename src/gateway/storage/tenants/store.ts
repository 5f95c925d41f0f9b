import type { Sql } from "../sql/database.js";
import { byBytes, run, type StoreSql } from "../sql/store-sql.js";
import type { CompanyRow, NewOwnerToken, OwnerRow } from "./row.js";

/** The tenants record as the capabilities use it (D-221): the type of its store (D-374). */
export type TenantStore = ReturnType<typeof sqlTenantStore>;

/**
 * The tenants record (companies, owners, their sessions and bearer tokens), once for both databases (D-275). Sessions
 * and tokens are read on every request, never cached: a revoked one is refused by every process at once (D-250).
 */
export function sqlTenantStore(sql: StoreSql) {
  const { db } = sql;
  return {
    /** Every company's id (a purge walks other records per company on their company indexes). */
    async companyIds() {
      const rows = await db.selectFrom("companies").select("id").orderBy(byBytes(sql, "id")).execute();
      return rows.map((row) => row.id);
    },
    getCompany: (id: string) => db.selectFrom("companies").selectAll().where("id", "=", id).executeTakeFirst(),
    insertCompany: (row: CompanyRow) => run(db.insertInto("companies").values(row)),
    updateCompany: (id: string, change: Pick<CompanyRow, "name" | "limits">) =>
      run(db.updateTable("companies").set(change).where("id", "=", id)),
    /** A company's own upstream limits (§8 levels it set lower), or null. */
    async companyLimits(id: string) {
      const row = await db.selectFrom("companies").select("limits").where("id", "=", id).executeTakeFirst();
      return row?.limits ?? null;
    },
    ownerByEmail: (email: string) => db.selectFrom("owners").selectAll().where("email", "=", email).executeTakeFirst(),
    insertOwner: (row: OwnerRow) => run(db.insertInto("owners").values(row)),
    /**
     * Updates an owner; `endSessions`: and ends its sessions (its password changed), in one transaction (D-250). Bearer
     * tokens stay: they are credentials of their own (docs/decisions.md, "Owner sign-in").
     */
    async updateOwner(
      id: string,
      change: Partial<Pick<OwnerRow, "name" | "role" | "passwordHash">>,
      endSessions?: Date,
    ): Promise<void> {
      const update = (on: Sql) => run(on.updateTable("owners").set(change).where("id", "=", id));
      if (!endSessions) return update(db);
      await sql.atomically(async (tx) => {
        await update(tx);
        await revokeSessions(tx, id, endSessions);
      });
    },
    /** A rehashed password, only if unchanged meanwhile (a config file applied a new one during a sign-in). */
    rehashPassword: (id: string, was: string, passwordHash: string) =>
      run(db.updateTable("owners").set({ passwordHash }).where("id", "=", id).where("passwordHash", "=", was)),
    insertToken: (row: NewOwnerToken) => run(db.insertInto("ownerTokens").values(row)),
    /** The session or token with this digest, and its owner: read now, on every request (D-250). */
    async tokenWithOwner(tokenDigest: string) {
      const row = await db
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
    },
    touchToken: (id: string, at: string) =>
      run(db.updateTable("ownerTokens").set({ lastUsedAt: at }).where("id", "=", id)),
    /** An owner's bearer tokens not revoked, newest first (ids compared bytewise: D-251), never their digests. */
    tokensOf: (ownerId: string) =>
      db
        .selectFrom("ownerTokens")
        .select(["id", "name", "createdAt", "expiresAt", "lastUsedAt"])
        .where("ownerId", "=", ownerId)
        .where("kind", "=", "token")
        .where("revokedAt", "is", null)
        .orderBy(byBytes(sql, "id"), "desc")
        .execute(),
    /** Revokes one of the owner's sessions or tokens; false when it has none by that id (or it is revoked already). */
    async revokeToken(id: string, ownerId: string, at: string) {
      const result = await db
        .updateTable("ownerTokens")
        .set({ revokedAt: at })
        .where("id", "=", id)
        .where("ownerId", "=", ownerId)
        .where("revokedAt", "is", null)
        .executeTakeFirst();
      return result.numUpdatedRows !== 0n;
    },
  };
}

/** Ends every session of an owner (its bearer tokens stay: D-250). */
function revokeSessions(db: Sql, ownerId: string, now: Date): Promise<void> {
  return run(
    db
      .updateTable("ownerTokens")
      .set({ revokedAt: now.toISOString() })
      .where("ownerId", "=", ownerId)
      .where("kind", "=", "session")
      .where("revokedAt", "is", null),
  );
}
