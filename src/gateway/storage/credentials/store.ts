import { CompiledOnce } from "../sql/compiled.js";
import { byBytes, rowOfCompany, rowsOfCompany, run, type StoreSql } from "../sql/store-sql.js";
import type { UpstreamCredentialStore } from "./port.js";

/** One credential by id: read once per send (forwarding's key), so compiled once (D-275). */
const BY_ID = new CompiledOnce((on, args: { id: string }) =>
  on.db.selectFrom("upstreamCredentials").selectAll().where("id", "=", args.id),
);

/**
 * The upstream credentials record, once for both databases (D-275). Nothing cached: forwarding reads a credential per
 * send, so a rotation or a pause holds in every process from its commit.
 */
export function sqlUpstreamCredentialStore(sql: StoreSql): UpstreamCredentialStore {
  const { db } = sql;
  const all = () => db.selectFrom("upstreamCredentials").selectAll();
  // As created (D-251): the same order on both databases.
  const listed = () => all().orderBy("createdAt").orderBy(byBytes(sql, "id"));
  return {
    get: async (id) => (await BY_ID.run(sql, { id })).rows[0],
    getOfCompany: (id, companyId) => rowOfCompany(db, "upstreamCredentials", id, companyId),
    findByName: (companyId, name) =>
      listed().where("companyId", "=", companyId).where("name", "=", name).limit(1).executeTakeFirst(),
    listOfCompany: (companyId) => rowsOfCompany(sql, "upstreamCredentials", companyId),
    listAll: () => listed().execute(),
    async activeIds() {
      const rows = await db.selectFrom("upstreamCredentials").select("id").where("status", "=", "active").execute();
      return rows.map((r) => r.id);
    },
    async inactive(id) {
      const rows = await db
        .selectFrom("upstreamCredentials")
        .select(["id", "pausedReason"])
        .where("status", "!=", "active")
        .$if(id !== undefined, (q) => q.where("id", "=", id as string))
        .execute();
      return rows.map((r) => ({ id: r.id, reason: r.pausedReason ?? "paused" }));
    },
    insert: (row) => run(db.insertInto("upstreamCredentials").values(row)),
    update: (id, change) => run(db.updateTable("upstreamCredentials").set(change).where("id", "=", id)),
    // One conditional statement (D-250): on PostgreSQL its row lock orders it with a concurrent rotation, whose new
    // version then fails the condition.
    async pause(id, reason, version) {
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
