import type { TableCache } from "../../../db/table-cache.js";
import type { MaybePromise } from "../maybe.js";
import { byBytes, type StoreSql } from "../sql/store-sql.js";
import type { ConnectionStore } from "./port.js";
import type { ConnectionChange, ConnectionRow, NewConnection, ProofFailureMinute } from "./row.js";

const MINUTE_MS = 60_000;
/** The longest window an owner may set (7 days, alerts.schemas.ts), and a minute: older minutes are deleted. */
const PROOF_MINUTES_KEPT = 7 * 24 * 60 + 1;

/**
 * The hook connections record: every statement on `connections` is here, once for both databases (D-275). The hook
 * route finds a connection by its token's digest on every request (`findByToken`: cached as intake's vendor keys are,
 * D-247, so a revoked or rotated token is refused by every process within a second); the owner's API makes, lists,
 * rotates and revokes connections.
 */
export class SqlConnectionStore implements ConnectionStore {
  readonly #sql: StoreSql;
  readonly #cache: TableCache<ConnectionRow>;
  #wrote = false;
  readonly #load = (tokenDigest: string) =>
    this.#sql.db
      .selectFrom("connections")
      .selectAll()
      .where((eb) => eb.or([eb("tokenDigest", "=", tokenDigest), eb("previousTokenDigest", "=", tokenDigest)]))
      .executeTakeFirst();

  /** `cache`: the process's cache of connections by token digest, shared with the stores of its transactions. */
  constructor(sql: StoreSql, cache: TableCache<ConnectionRow>) {
    this.#sql = sql;
    this.#cache = cache;
  }

  findByToken(tokenDigest: string): MaybePromise<ConnectionRow | undefined> {
    if (this.#sql.inTransaction) return this.#load(tokenDigest);
    return this.#cache.lookup(tokenDigest, this.#load);
  }

  get(id: string): Promise<ConnectionRow | undefined> {
    return this.#sql.db.selectFrom("connections").selectAll().where("id", "=", id).executeTakeFirst();
  }

  getOfCompany(id: string, companyId: string): Promise<ConnectionRow | undefined> {
    return this.#sql.db
      .selectFrom("connections")
      .selectAll()
      .where("id", "=", id)
      .where("companyId", "=", companyId)
      .executeTakeFirst();
  }

  ofVendorKey(vendorKeyId: string): Promise<ConnectionRow | undefined> {
    return this.#sql.db.selectFrom("connections").selectAll().where("vendorKeyId", "=", vendorKeyId).executeTakeFirst();
  }

  /** A company's connections in the order they were made (D-251). */
  listOfCompany(companyId: string): Promise<ConnectionRow[]> {
    return this.#sql.db
      .selectFrom("connections")
      .selectAll()
      .where("companyId", "=", companyId)
      .orderBy("createdAt")
      .orderBy(byBytes(this.#sql, "id"))
      .execute();
  }

  async insert(row: NewConnection): Promise<void> {
    await this.#sql.db.insertInto("connections").values(row).execute();
    this.#changed();
  }

  async update(id: string, change: ConnectionChange): Promise<void> {
    await this.#sql.db.updateTable("connections").set(change).where("id", "=", id).execute();
    this.#changed();
  }

  async addProofFailures(id: string, count: number, lastAt: string, lastReason: string): Promise<void> {
    const minute = Math.floor(Date.parse(lastAt) / MINUTE_MS);
    await this.#sql.atomically(async (db) => {
      await db
        .updateTable("connections")
        .set((eb) => ({
          proofFailures: eb("proofFailures", "+", count),
          lastProofFailureAt: lastAt,
          lastProofFailure: lastReason,
        }))
        .where("id", "=", id)
        .execute();
      // The minute's row (its primary key), its company read from the connection.
      await db
        .insertInto("proofFailureMinutes")
        .columns(["connectionId", "companyId", "minute", "count"])
        .expression(
          db
            .selectFrom("connections")
            .select((eb) => ["id", "companyId", eb.val(minute).as("minute"), eb.val(count).as("count")])
            .where("id", "=", id),
        )
        .onConflict((oc) =>
          oc
            .columns(["connectionId", "minute"])
            .doUpdateSet((eb) => ({ count: eb("proofFailureMinutes.count", "+", eb.ref("excluded.count")) })),
        )
        .execute();
      // The primary key's connection prefix: what no window can reach any more.
      await db
        .deleteFrom("proofFailureMinutes")
        .where("connectionId", "=", id)
        .where("minute", "<", minute - PROOF_MINUTES_KEPT)
        .execute();
    });
    this.#changed();
  }

  /** proof_failure_minutes_company_idx: the company's range from the minute. */
  proofFailureMinutes(companyId: string, sinceMinute: number): Promise<ProofFailureMinute[]> {
    return this.#sql.db
      .selectFrom("proofFailureMinutes")
      .select(["connectionId", "minute", "count"])
      .where("companyId", "=", companyId)
      .where("minute", ">=", sinceMinute)
      .execute();
  }

  /** The transaction this store is bound to committed: its writes hold in this process's cache from now on. */
  afterCommit(): void {
    if (this.#wrote) this.#cache.invalidate();
    this.#wrote = false;
  }

  #changed(): void {
    if (this.#sql.inTransaction) this.#wrote = true;
    else this.#cache.invalidate();
  }
}
