import { CompiledOnce } from "../sql/compiled.js";
import { byBytes, rowOfCompany, rowsOfCompany, run, type StoreSql } from "../sql/store-sql.js";
import type { CredentialChange, NewUpstreamCredential } from "./row.js";

/** The upstream credentials record as the capabilities use it (D-221): the type of its store (D-374). */
export type UpstreamCredentialStore = ReturnType<typeof sqlUpstreamCredentialStore>;

/** One credential by id: read once per send (forwarding's key), so compiled once (D-275). */
const BY_ID = new CompiledOnce((on, args: { id: string }) =>
  on.db.selectFrom("upstreamCredentials").selectAll().where("id", "=", args.id),
);

/**
 * The upstream credentials record, once for both databases (D-275). Nothing cached: forwarding reads a credential per
 * send, so a rotation or a pause holds in every process from its commit.
 */
export function sqlUpstreamCredentialStore(sql: StoreSql) {
  const { db } = sql;
  // As created (D-251): the same order on both databases.
  const listed = () =>
    db.selectFrom("upstreamCredentials").selectAll().orderBy("createdAt").orderBy(byBytes(sql, "id"));
  return {
    get: async (id: string) => (await BY_ID.run(sql, { id })).rows[0],
    getOfCompany: (id: string, companyId: string) => rowOfCompany(db, "upstreamCredentials", id, companyId),
    /** A company's credential by its name (the config file names them). */
    findByName: (companyId: string, name: string) =>
      listed().where("companyId", "=", companyId).where("name", "=", name).limit(1).executeTakeFirst(),
    listOfCompany: (companyId: string) => rowsOfCompany(sql, "upstreamCredentials", companyId),
    /** Every company's credentials (linking the embedded sandbox at start), in the same order. */
    listAll: () => listed().execute(),
    /** The ids of the credentials forwarding may send with now. */
    async activeIds() {
      const rows = await db.selectFrom("upstreamCredentials").select("id").where("status", "=", "active").execute();
      return rows.map((r) => r.id);
    },
    /** Credentials not active (paused: refused by the platform), with the reason (`id`: that one only, if so). */
    async inactive(id?: string) {
      const rows = await db
        .selectFrom("upstreamCredentials")
        .select(["id", "pausedReason"])
        .where("status", "!=", "active")
        .$if(id !== undefined, (q) => q.where("id", "=", id as string))
        .execute();
      return rows.map((r) => ({ id: r.id, reason: r.pausedReason ?? "paused" }));
    },
    insert: (row: NewUpstreamCredential) => run(db.insertInto("upstreamCredentials").values(row)),
    update: (id: string, change: CredentialChange) =>
      run(db.updateTable("upstreamCredentials").set(change).where("id", "=", id)),
    /**
     * Pauses a credential refused with its key `version`. False (nothing changed) when the credential was rotated since
     * that key was sent: a late 401 of the old key says nothing about the new one. One conditional statement (D-250):
     * on PostgreSQL its row lock orders it with a concurrent rotation, whose new version then fails the condition.
     */
    async pause(id: string, reason: string, version: number) {
      const result = await db
        .updateTable("upstreamCredentials")
        .set({ status: "paused", pausedReason: reason })
        .where("id", "=", id)
        .where("version", "=", version)
        .executeTakeFirst();
      return result.numUpdatedRows !== 0n;
    },
  };
}
