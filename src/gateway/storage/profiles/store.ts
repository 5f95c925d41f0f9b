import { rowOfCompany, rowsOfCompany, run, type StoreSql } from "../sql/store-sql.js";
import type { ProfileStore } from "./port.js";
import type { VersionCache } from "./version-cache.js";

/**
 * The profiles record (profiles and their versions), once for both databases (D-275). `versions`: the process's cache
 * of immutable versions (D-248), shared with the stores bound to its transactions.
 */
export function sqlProfileStore(sql: StoreSql, versions: VersionCache): ProfileStore {
  const { db } = sql;
  const load = (versionId: string) =>
    db.selectFrom("profileVersions").select(["companyId", "expression"]).where("id", "=", versionId).executeTakeFirst();
  const newestFirst = (profileId: string) =>
    db.selectFrom("profileVersions").selectAll().where("profileId", "=", profileId).orderBy("version", "desc");
  return {
    expressionOf: (companyId, versionId) => versions.get(companyId, versionId, load, !sql.inTransaction),
    getProfileOfCompany: (id, companyId) => rowOfCompany(db, "profiles", id, companyId),
    profileByName: (companyId, name) =>
      db
        .selectFrom("profiles")
        .selectAll()
        .where("companyId", "=", companyId)
        .where("name", "=", name)
        .executeTakeFirst(),
    profilesOf: (companyId) => rowsOfCompany(sql, "profiles", companyId),
    insertProfile: (row) => run(db.insertInto("profiles").values(row)),
    getVersionOfCompany: (id, companyId) => rowOfCompany(db, "profileVersions", id, companyId),
    async versionWithKind(id) {
      const row = await db
        .selectFrom("profileVersions")
        .innerJoin("profiles", "profiles.id", "profileVersions.profileId")
        .selectAll("profileVersions")
        .select("profiles.kind as profileKind")
        .where("profileVersions.id", "=", id)
        .executeTakeFirst();
      if (!row) return undefined;
      const { profileKind, ...version } = row;
      return { version, kind: profileKind };
    },
    versionsOf: (profileId) => newestFirst(profileId).execute(),
    latestVersionOf: (profileId) => newestFirst(profileId).limit(1).executeTakeFirst(),
    async versionIdsOf(profileId) {
      const rows = await db
        .selectFrom("profileVersions")
        .select("id")
        .where("profileId", "=", profileId)
        .orderBy("version")
        .execute();
      return rows.map((v) => v.id);
    },
    insertVersion: (row) => run(db.insertInto("profileVersions").values(row)),
    publishVersion: (id, publishedAt) =>
      run(
        db
          .updateTable("profileVersions")
          .set({ status: "published", samplesPassed: true, publishedAt })
          .where("id", "=", id),
      ),
    // On PostgreSQL the versions are read `FOR UPDATE`: a second erasure at once waits, then reads what this one left,
    // and counts only what it removes itself.
    eraseSamples: (companyId, mentions) =>
      sql.atomically(async (tx) => {
        let removed = 0;
        const versions = await tx
          .selectFrom("profileVersions")
          .select(["id", "samples"])
          .where("companyId", "=", companyId)
          .$if(sql.dialect === "postgres", (q) => q.forUpdate())
          .execute();
        for (const version of versions) {
          const kept = version.samples.filter((sample) => !mentions(JSON.stringify(sample)));
          if (kept.length === version.samples.length) continue;
          removed += version.samples.length - kept.length;
          await tx.updateTable("profileVersions").set({ samples: kept }).where("id", "=", version.id).execute();
        }
        return removed;
      }, "immediate"),
  };
}
