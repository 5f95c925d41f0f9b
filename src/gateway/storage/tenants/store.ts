import type { Sql } from "../sql/database.js";
import { byBytes, run, type StoreSql } from "../sql/store-sql.js";
import type { TenantStore } from "./port.js";

/**
 * The tenants record (companies, owners, their sessions and bearer tokens), once for both databases (D-275). Sessions
 * and tokens are read on every request, never cached: a revoked one is refused by every process at once (D-250).
 */
export function sqlTenantStore(sql: StoreSql): TenantStore {
  const { db } = sql;
  return {
    async companyIds() {
      const rows = await db.selectFrom("companies").select("id").orderBy(byBytes(sql, "id")).execute();
      return rows.map((row) => row.id);
    },
    getCompany: (id) => db.selectFrom("companies").selectAll().where("id", "=", id).executeTakeFirst(),
    insertCompany: (row) => run(db.insertInto("companies").values(row)),
    updateCompany: (id, change) => run(db.updateTable("companies").set(change).where("id", "=", id)),
    async companyLimits(id) {
      const row = await db.selectFrom("companies").select("limits").where("id", "=", id).executeTakeFirst();
      return row?.limits ?? null;
    },
    ownerByEmail: (email) => db.selectFrom("owners").selectAll().where("email", "=", email).executeTakeFirst(),
    insertOwner: (row) => run(db.insertInto("owners").values(row)),
    async updateOwner(id, change, endSessions) {
      const update = (on: Sql) => run(on.updateTable("owners").set(change).where("id", "=", id));
      if (!endSessions) return update(db);
      await sql.atomically(async (tx) => {
        await update(tx);
        await revokeSessions(tx, id, endSessions);
      });
    },
    rehashPassword: (id, was, passwordHash) =>
      run(db.updateTable("owners").set({ passwordHash }).where("id", "=", id).where("passwordHash", "=", was)),
    insertToken: (row) => run(db.insertInto("ownerTokens").values(row)),
    async tokenWithOwner(tokenDigest) {
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
    touchToken: (id, at) => run(db.updateTable("ownerTokens").set({ lastUsedAt: at }).where("id", "=", id)),
    tokensOf: (ownerId) =>
      db
        .selectFrom("ownerTokens")
        .select(["id", "name", "createdAt", "expiresAt", "lastUsedAt"])
        .where("ownerId", "=", ownerId)
        .where("kind", "=", "token")
        .where("revokedAt", "is", null)
        .orderBy(byBytes(sql, "id"), "desc")
        .execute(),
    async revokeToken(id, ownerId, at) {
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
