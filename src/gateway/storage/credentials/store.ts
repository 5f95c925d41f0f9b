import { byBytes, rowOfCompany, rowsOfCompany, type StoreSql } from "../sql/store-sql.js";
import type { UpstreamCredentialStore } from "./port.js";
import type { CredentialChange, NewUpstreamCredential, UpstreamCredentialRow } from "./row.js";

/**
 * The upstream credentials record (one of a company's general keys for the Inbound API): every statement on its table
 * is here, once for both databases (D-275). The owner's API creates, rotates and lists them; forwarding reads one per
 * send and pauses one the platform refused. Nothing cached: forwarding reads a credential per send, so a rotation or a
 * pause holds in every process from its commit.
 */
export class SqlUpstreamCredentialStore implements UpstreamCredentialStore {
  readonly #sql: StoreSql;

  constructor(sql: StoreSql) {
    this.#sql = sql;
  }

  #select() {
    return this.#sql.db.selectFrom("upstreamCredentials").selectAll();
  }

  /** As created (D-251): the same order on both databases. */
  #listed() {
    return this.#select().orderBy("createdAt").orderBy(byBytes(this.#sql, "id"));
  }

  get(id: string): Promise<UpstreamCredentialRow | undefined> {
    return this.#select().where("id", "=", id).executeTakeFirst();
  }

  /** One of a company's credentials (another company's is not found). */
  getOfCompany(id: string, companyId: string): Promise<UpstreamCredentialRow | undefined> {
    return rowOfCompany(this.#sql.db, "upstreamCredentials", id, companyId);
  }

  /** A company's credential by its name (the config file names them). */
  findByName(companyId: string, name: string): Promise<UpstreamCredentialRow | undefined> {
    return this.#listed().where("companyId", "=", companyId).where("name", "=", name).limit(1).executeTakeFirst();
  }

  listOfCompany(companyId: string): Promise<UpstreamCredentialRow[]> {
    return rowsOfCompany(this.#sql, "upstreamCredentials", companyId);
  }

  /** Every company's credentials (linking the embedded sandbox at start). */
  listAll(): Promise<UpstreamCredentialRow[]> {
    return this.#listed().execute();
  }

  /** The ids of the credentials forwarding may send with now. */
  async activeIds(): Promise<string[]> {
    const rows = await this.#sql.db
      .selectFrom("upstreamCredentials")
      .select("id")
      .where("status", "=", "active")
      .execute();
    return rows.map((r) => r.id);
  }

  /** Credentials not active (paused: refused by the platform), with the reason (`id`: that one only, if so). */
  async inactive(id?: string): Promise<{ id: string; reason: string }[]> {
    const rows = await this.#sql.db
      .selectFrom("upstreamCredentials")
      .select(["id", "pausedReason"])
      .where("status", "!=", "active")
      .$if(id !== undefined, (q) => q.where("id", "=", id as string))
      .execute();
    return rows.map((r) => ({ id: r.id, reason: r.pausedReason ?? "paused" }));
  }

  async insert(row: NewUpstreamCredential): Promise<void> {
    await this.#sql.db.insertInto("upstreamCredentials").values(row).execute();
  }

  async update(id: string, change: CredentialChange): Promise<void> {
    await this.#sql.db.updateTable("upstreamCredentials").set(change).where("id", "=", id).execute();
  }

  /**
   * Pauses a credential refused with its key `version`. False (nothing changed) when the credential was rotated since
   * that key was sent: a late 401 of the old key says nothing about the new one. One conditional statement (D-250):
   * on PostgreSQL its row lock orders it with a concurrent rotation, whose new version then fails the condition.
   */
  async pause(id: string, reason: string, version: number): Promise<boolean> {
    const result = await this.#sql.db
      .updateTable("upstreamCredentials")
      .set({ status: "paused", pausedReason: reason })
      .where("id", "=", id)
      .where("version", "=", version)
      .executeTakeFirst();
    return result.numUpdatedRows !== 0n;
  }
}
