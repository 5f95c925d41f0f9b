import { and, eq, isNull, sql } from "drizzle-orm";
import type { GatewayPgDb } from "../../../db/postgres.js";
import { companies, owners, ownerTokens } from "../../../db/schema-pg/index.js";
import { type PgHandles, pgTransaction, preparedOn } from "../pg-handles.js";
import type { OwnerTokenSummary, TenantStore } from "./port.js";
import type { CompanyRow, NewOwnerToken, OwnerRow, OwnerTokenRow } from "./store.js";

/** Every owner request authenticates by digest: one named prepared statement. */
function byDigest(db: GatewayPgDb) {
  return db
    .select({ token: ownerTokens, owner: owners })
    .from(ownerTokens)
    .innerJoin(owners, eq(owners.id, ownerTokens.ownerId))
    .where(eq(ownerTokens.tokenDigest, sql.placeholder("digest")))
    .prepare("owner_tokens_with_owner");
}

/** Forwarding reads a company's own limits when it (re)builds its limiter. */
function limitsOf(db: GatewayPgDb) {
  return db
    .select({ limits: companies.limits })
    .from(companies)
    .where(eq(companies.id, sql.placeholder("id")))
    .prepare("companies_limits");
}

/**
 * The tenants record on PostgreSQL — companies, their owners, and the owners' sessions and bearer tokens (the twin of
 * store.ts). Sessions and tokens are read from the database on every request, never cached: a revoked session or
 * token is refused by every process at once (docs/decisions.md, D-250).
 */
export class PostgresTenantStore implements TenantStore {
  readonly #handles: PgHandles;
  readonly #db: GatewayPgDb;

  constructor(handles: PgHandles) {
    this.#handles = handles;
    this.#db = handles.db;
  }

  /** Every company's id (a purge walks other records per company on their company indexes). */
  async companyIds(): Promise<string[]> {
    const rows = await this.#db.select({ id: companies.id }).from(companies).orderBy(sql`${companies.id} collate "C"`);
    return rows.map((row) => row.id);
  }

  async getCompany(id: string): Promise<CompanyRow | undefined> {
    const [row] = await this.#db.select().from(companies).where(eq(companies.id, id));
    return row;
  }

  async insertCompany(row: CompanyRow): Promise<void> {
    await this.#db.insert(companies).values(row);
  }

  async updateCompany(id: string, change: Pick<CompanyRow, "name" | "limits">): Promise<void> {
    await this.#db.update(companies).set(change).where(eq(companies.id, id));
  }

  /** A company's own upstream limits (§8 levels it set lower), or null. */
  async companyLimits(id: string): Promise<CompanyRow["limits"] | null> {
    const [row] = await preparedOn(this.#db, limitsOf).execute({ id });
    return row?.limits ?? null;
  }

  async ownerByEmail(email: string): Promise<OwnerRow | undefined> {
    const [row] = await this.#db.select().from(owners).where(eq(owners.email, email));
    return row;
  }

  async insertOwner(row: OwnerRow): Promise<void> {
    await this.#db.insert(owners).values(row);
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
    if (!endSessions) {
      await this.#db.update(owners).set(change).where(eq(owners.id, id));
      return;
    }
    await pgTransaction(this.#handles, async (inside) => {
      await inside.db.update(owners).set(change).where(eq(owners.id, id));
      await revokeSessions(inside.db, id, endSessions);
    });
  }

  /** A rehashed password, only if unchanged meanwhile (a config file applied a new one during a sign-in). */
  async rehashPassword(id: string, was: string, passwordHash: string): Promise<void> {
    await this.#db
      .update(owners)
      .set({ passwordHash })
      .where(and(eq(owners.id, id), eq(owners.passwordHash, was)));
  }

  async insertToken(row: NewOwnerToken): Promise<void> {
    await this.#db.insert(ownerTokens).values(row);
  }

  /** The session or token with this digest, and its owner: read now, on every request (D-250). */
  async tokenWithOwner(tokenDigest: string): Promise<{ token: OwnerTokenRow; owner: OwnerRow } | undefined> {
    const [row] = await preparedOn(this.#db, byDigest).execute({ digest: tokenDigest });
    return row;
  }

  async touchToken(id: string, at: string): Promise<void> {
    await this.#db.update(ownerTokens).set({ lastUsedAt: at }).where(eq(ownerTokens.id, id));
  }

  /** An owner's bearer tokens not revoked, newest first (ids compared bytewise, as SQLite does: D-251). */
  async tokensOf(ownerId: string): Promise<OwnerTokenSummary[]> {
    return this.#db
      .select({
        id: ownerTokens.id,
        name: ownerTokens.name,
        createdAt: ownerTokens.createdAt,
        expiresAt: ownerTokens.expiresAt,
        lastUsedAt: ownerTokens.lastUsedAt,
      })
      .from(ownerTokens)
      .where(and(eq(ownerTokens.ownerId, ownerId), eq(ownerTokens.kind, "token"), isNull(ownerTokens.revokedAt)))
      .orderBy(sql`${ownerTokens.id} collate "C" desc`);
  }

  /** Revokes one of the owner's sessions or tokens; false when it has none by that id (or it is revoked already). */
  async revokeToken(id: string, ownerId: string, at: string): Promise<boolean> {
    const result = await this.#db
      .update(ownerTokens)
      .set({ revokedAt: at })
      .where(and(eq(ownerTokens.id, id), eq(ownerTokens.ownerId, ownerId), isNull(ownerTokens.revokedAt)));
    return (result.rowCount ?? 0) !== 0;
  }

  /** Ends every session of an owner. */
  async revokeSessions(ownerId: string, now: Date): Promise<void> {
    await revokeSessions(this.#db, ownerId, now);
  }
}

async function revokeSessions(db: GatewayPgDb, ownerId: string, now: Date): Promise<void> {
  await db
    .update(ownerTokens)
    .set({ revokedAt: now.toISOString() })
    .where(and(eq(ownerTokens.ownerId, ownerId), eq(ownerTokens.kind, "session"), isNull(ownerTokens.revokedAt)));
}
