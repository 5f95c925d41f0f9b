import { and, eq, ne } from "drizzle-orm";
import { upstreamCredentials } from "../../../db/schema/index.js";
import type { StorageHandles } from "../handles.js";
import type { GateView } from "../sqlite-gate.js";
import type { UpstreamCredentialStore } from "./port.js";

/** An upstream credential as stored: its value sealed under the master key (§5.9: never shown again). */
export type UpstreamCredentialRow = typeof upstreamCredentials.$inferSelect;
export type NewUpstreamCredential = typeof upstreamCredentials.$inferInsert;

/** What rotating a credential changes. */
export type CredentialChange = Partial<
  Pick<UpstreamCredentialRow, "keyPrefix" | "sealed" | "version" | "status" | "pausedReason" | "rotatedAt">
>;

/**
 * The upstream credentials record (one of a company's general keys for the Inbound API): every statement on its table
 * is here. The owner's API creates, rotates and lists them; forwarding reads one per send and pauses one the platform
 * refused. The SQLite implementation of port.ts (D-221): every method waits at the connection's gate while an
 * asynchronous transaction holds it (sqlite-gate.ts, D-222), and otherwise runs on the calling thread at once.
 */
export class SqliteUpstreamCredentialStore implements UpstreamCredentialStore {
  readonly #db: StorageHandles["db"];

  readonly #gate: GateView;

  constructor(handles: StorageHandles) {
    this.#gate = handles.gate;
    this.#db = handles.db;
  }

  async get(id: string): Promise<UpstreamCredentialRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db.select().from(upstreamCredentials).where(eq(upstreamCredentials.id, id)).get();
  }

  /** One of a company's credentials (another company's is not found). */
  async getOfCompany(id: string, companyId: string): Promise<UpstreamCredentialRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(upstreamCredentials)
      .where(and(eq(upstreamCredentials.id, id), eq(upstreamCredentials.companyId, companyId)))
      .get();
  }

  /** A company's credential by its name (the config file names them). */
  async findByName(companyId: string, name: string): Promise<UpstreamCredentialRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(upstreamCredentials)
      .where(and(eq(upstreamCredentials.companyId, companyId), eq(upstreamCredentials.name, name)))
      .get();
  }

  async listOfCompany(companyId: string): Promise<UpstreamCredentialRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db.select().from(upstreamCredentials).where(eq(upstreamCredentials.companyId, companyId)).all();
  }

  /** Every company's credentials (linking the embedded sandbox at start). */
  async listAll(): Promise<UpstreamCredentialRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db.select().from(upstreamCredentials).all();
  }

  /** The ids of the credentials forwarding may send with now. */
  async activeIds(): Promise<string[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select({ id: upstreamCredentials.id })
      .from(upstreamCredentials)
      .where(eq(upstreamCredentials.status, "active"))
      .all()
      .map((r) => r.id);
  }

  /** Credentials not active (paused: refused by the platform), with the reason (`id`: that one only, if so). */
  async inactive(id?: string): Promise<{ id: string; reason: string }[]> {
    while (this.#gate.busy) await this.#gate.pass();
    const where = [ne(upstreamCredentials.status, "active")];
    if (id !== undefined) where.push(eq(upstreamCredentials.id, id));
    return this.#db
      .select({ id: upstreamCredentials.id, reason: upstreamCredentials.pausedReason })
      .from(upstreamCredentials)
      .where(and(...where))
      .all()
      .map((r) => ({ id: r.id, reason: r.reason ?? "paused" }));
  }

  async insert(row: NewUpstreamCredential): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.insert(upstreamCredentials).values(row).run();
  }

  async update(id: string, change: CredentialChange): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.update(upstreamCredentials).set(change).where(eq(upstreamCredentials.id, id)).run();
  }

  /**
   * Pauses a credential refused with its key `version`. False (nothing changed) when the credential was rotated since
   * that key was sent: a late 401 of the old key says nothing about the new one.
   */
  async pause(id: string, reason: string, version: number): Promise<boolean> {
    while (this.#gate.busy) await this.#gate.pass();
    return (
      this.#db
        .update(upstreamCredentials)
        .set({ status: "paused", pausedReason: reason })
        .where(and(eq(upstreamCredentials.id, id), eq(upstreamCredentials.version, version)))
        .run().changes !== 0
    );
  }
}
