import { and, asc, eq, ne, sql } from "drizzle-orm";
import type { GatewayPgDb } from "../../../db/postgres.js";
import { upstreamCredentials } from "../../../db/schema-pg/index.js";
import { type PgHandles, preparedOn } from "../pg-handles.js";
import type { UpstreamCredentialStore } from "./port.js";
import type { CredentialChange, NewUpstreamCredential, UpstreamCredentialRow } from "./store.js";

/** Forwarding reads the credential of every send: one named prepared statement. */
function byId(db: GatewayPgDb) {
  return db
    .select()
    .from(upstreamCredentials)
    .where(eq(upstreamCredentials.id, sql.placeholder("id")))
    .prepare("upstream_credentials_by_id");
}

/** The order credentials are listed in: as created (SQLite's order; docs/decisions.md, D-251). */
const CREATED = [asc(upstreamCredentials.createdAt), sql`${upstreamCredentials.id} collate "C"`];

/**
 * The upstream credentials record on PostgreSQL (the twin of store.ts). Nothing cached: forwarding reads a credential
 * per send, so a rotation or a pause holds in every process from its commit. A pause is one conditional UPDATE on the
 * key version the platform refused (docs/decisions.md, D-250): a rotation committed by another process meanwhile wins.
 */
export class PostgresUpstreamCredentialStore implements UpstreamCredentialStore {
  readonly #db: GatewayPgDb;

  constructor(handles: PgHandles) {
    this.#db = handles.db;
  }

  async get(id: string): Promise<UpstreamCredentialRow | undefined> {
    const [row] = await preparedOn(this.#db, byId).execute({ id });
    return row;
  }

  /** One of a company's credentials (another company's is not found). */
  async getOfCompany(id: string, companyId: string): Promise<UpstreamCredentialRow | undefined> {
    const [row] = await this.#db
      .select()
      .from(upstreamCredentials)
      .where(and(eq(upstreamCredentials.id, id), eq(upstreamCredentials.companyId, companyId)));
    return row;
  }

  /** A company's credential by its name (the config file names them). */
  async findByName(companyId: string, name: string): Promise<UpstreamCredentialRow | undefined> {
    const [row] = await this.#db
      .select()
      .from(upstreamCredentials)
      .where(and(eq(upstreamCredentials.companyId, companyId), eq(upstreamCredentials.name, name)))
      .orderBy(...CREATED)
      .limit(1);
    return row;
  }

  async listOfCompany(companyId: string): Promise<UpstreamCredentialRow[]> {
    return this.#db
      .select()
      .from(upstreamCredentials)
      .where(eq(upstreamCredentials.companyId, companyId))
      .orderBy(...CREATED);
  }

  /** Every company's credentials (linking the embedded sandbox at start). */
  async listAll(): Promise<UpstreamCredentialRow[]> {
    return this.#db
      .select()
      .from(upstreamCredentials)
      .orderBy(...CREATED);
  }

  /** The ids of the credentials forwarding may send with now. */
  async activeIds(): Promise<string[]> {
    const rows = await this.#db
      .select({ id: upstreamCredentials.id })
      .from(upstreamCredentials)
      .where(eq(upstreamCredentials.status, "active"));
    return rows.map((r) => r.id);
  }

  /** Credentials not active (paused: refused by the platform), with the reason (`id`: that one only, if so). */
  async inactive(id?: string): Promise<{ id: string; reason: string }[]> {
    const where = [ne(upstreamCredentials.status, "active")];
    if (id !== undefined) where.push(eq(upstreamCredentials.id, id));
    const rows = await this.#db
      .select({ id: upstreamCredentials.id, reason: upstreamCredentials.pausedReason })
      .from(upstreamCredentials)
      .where(and(...where));
    return rows.map((r) => ({ id: r.id, reason: r.reason ?? "paused" }));
  }

  async insert(row: NewUpstreamCredential): Promise<void> {
    await this.#db.insert(upstreamCredentials).values(row);
  }

  async update(id: string, change: CredentialChange): Promise<void> {
    await this.#db.update(upstreamCredentials).set(change).where(eq(upstreamCredentials.id, id));
  }

  /**
   * Pauses a credential refused with its key `version`. False (nothing changed) when the credential was rotated since
   * that key was sent: a late 401 of the old key says nothing about the new one. One statement: the row lock of the
   * UPDATE orders it with a concurrent rotation, whose new version then fails the condition.
   */
  async pause(id: string, reason: string, version: number): Promise<boolean> {
    const result = await this.#db
      .update(upstreamCredentials)
      .set({ status: "paused", pausedReason: reason })
      .where(and(eq(upstreamCredentials.id, id), eq(upstreamCredentials.version, version)));
    return (result.rowCount ?? 0) !== 0;
  }
}
