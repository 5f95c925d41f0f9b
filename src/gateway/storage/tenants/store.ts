import { and, desc, eq, isNull } from "drizzle-orm";
import { companies, owners, ownerTokens } from "../../../db/schema/index.js";
import type { StorageHandles } from "../handles.js";
import type { GateView } from "../sqlite-gate.js";
import type { TenantStore } from "./port.js";

export type CompanyRow = typeof companies.$inferSelect;
export type OwnerRow = typeof owners.$inferSelect;
/** A session (cookie) or a bearer token of an owner: only its digest is stored. */
export type OwnerTokenRow = typeof ownerTokens.$inferSelect;
export type NewOwnerToken = typeof ownerTokens.$inferInsert;

/**
 * The tenants record — companies, their owners, and the owners' sessions and bearer tokens: every statement on their
 * tables is here. The owner API signs in, authenticates each request (`tokenWithOwner`), and manages tokens;
 * forwarding reads a company's own limits. The SQLite implementation of port.ts (D-221): every method waits at the connection's gate while an
 * asynchronous transaction holds it (sqlite-gate.ts, D-222), and otherwise runs on the calling thread at once.
 */
export class SqliteTenantStore implements TenantStore {
  readonly #db: StorageHandles["db"];
  readonly #sqlite: StorageHandles["sqlite"];

  readonly #gate: GateView;

  constructor(handles: StorageHandles) {
    this.#gate = handles.gate;
    this.#db = handles.db;
    this.#sqlite = handles.sqlite;
  }

  /** Every company's id (a purge walks other records per company on their company indexes). */
  async companyIds(): Promise<string[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select({ id: companies.id })
      .from(companies)
      .all()
      .map((row) => row.id);
  }

  async getCompany(id: string): Promise<CompanyRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db.select().from(companies).where(eq(companies.id, id)).get();
  }

  async insertCompany(row: CompanyRow): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.insert(companies).values(row).run();
  }

  async updateCompany(id: string, change: Pick<CompanyRow, "name" | "limits">): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.update(companies).set(change).where(eq(companies.id, id)).run();
  }

  /** A company's own upstream limits (§8 levels it set lower), or null. */
  async companyLimits(id: string): Promise<CompanyRow["limits"] | null> {
    while (this.#gate.busy) await this.#gate.pass();
    return (
      this.#db.select({ limits: companies.limits }).from(companies).where(eq(companies.id, id)).get()?.limits ?? null
    );
  }

  async ownerByEmail(email: string): Promise<OwnerRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db.select().from(owners).where(eq(owners.email, email)).get();
  }

  async insertOwner(row: OwnerRow): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.insert(owners).values(row).run();
  }

  /**
   * Updates an owner; `endSessions`: and ends its sessions (its password changed), in one transaction. Bearer tokens
   * stay: they are credentials of their own (docs/decisions.md, "Owner sign-in").
   */
  async updateOwner(
    id: string,
    change: Partial<Pick<OwnerRow, "name" | "role" | "passwordHash">>,
    endSessions?: Date,
  ): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#sqlite.transaction(() => {
      this.#db.update(owners).set(change).where(eq(owners.id, id)).run();
      if (endSessions) this.#revokeSessions(id, endSessions);
    })();
  }

  /** A rehashed password, only if unchanged meanwhile (a config file applied a new one during a sign-in). */
  async rehashPassword(id: string, was: string, passwordHash: string): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db
      .update(owners)
      .set({ passwordHash })
      .where(and(eq(owners.id, id), eq(owners.passwordHash, was)))
      .run();
  }

  async insertToken(row: NewOwnerToken): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.insert(ownerTokens).values(row).run();
  }

  /** The session or token with this digest, and its owner. */
  async tokenWithOwner(tokenDigest: string): Promise<{ token: OwnerTokenRow; owner: OwnerRow } | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select({ token: ownerTokens, owner: owners })
      .from(ownerTokens)
      .innerJoin(owners, eq(owners.id, ownerTokens.ownerId))
      .where(eq(ownerTokens.tokenDigest, tokenDigest))
      .get();
  }

  async touchToken(id: string, at: string): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.update(ownerTokens).set({ lastUsedAt: at }).where(eq(ownerTokens.id, id)).run();
  }

  /** An owner's bearer tokens not revoked, newest first. */
  async tokensOf(ownerId: string) {
    while (this.#gate.busy) await this.#gate.pass();
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
      .orderBy(desc(ownerTokens.id))
      .all();
  }

  /** Revokes one of the owner's sessions or tokens; false when it has none by that id (or it is revoked already). */
  async revokeToken(id: string, ownerId: string, at: string): Promise<boolean> {
    while (this.#gate.busy) await this.#gate.pass();
    return (
      this.#db
        .update(ownerTokens)
        .set({ revokedAt: at })
        .where(and(eq(ownerTokens.id, id), eq(ownerTokens.ownerId, ownerId), isNull(ownerTokens.revokedAt)))
        .run().changes !== 0
    );
  }

  /** Ends every session of an owner. */
  async revokeSessions(ownerId: string, now: Date): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#revokeSessions(ownerId, now);
  }

  #revokeSessions(ownerId: string, now: Date): void {
    this.#db
      .update(ownerTokens)
      .set({ revokedAt: now.toISOString() })
      .where(and(eq(ownerTokens.ownerId, ownerId), eq(ownerTokens.kind, "session"), isNull(ownerTokens.revokedAt)))
      .run();
  }
}
