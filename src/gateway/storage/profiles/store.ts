import { rowOfCompany, rowsOfCompany, run, type StoreSql } from "../sql/store-sql.js";
import type { ProfileRow, ProfileVersionRow } from "./row.js";
import type { VersionCache } from "./version-cache.js";

/** The profiles record as the capabilities use it (D-221): the type of its store (D-374). */
export type ProfileStore = ReturnType<typeof sqlProfileStore>;

/**
 * The profiles record (profiles and their versions), once for both databases (D-275). `versions`: the process's cache
 * of immutable versions (D-248), shared with the stores bound to its transactions.
 */
export function sqlProfileStore(sql: StoreSql, versions: VersionCache) {
  const { db } = sql;
  const load = (versionId: string) =>
    db.selectFrom("profileVersions").select(["companyId", "expression"]).where("id", "=", versionId).executeTakeFirst();
  const newestFirst = (profileId: string) =>
    db.selectFrom("profileVersions").selectAll().where("profileId", "=", profileId).orderBy("version", "desc");
  return {
    /**
     * The cached read of intake and webhook delivery: a hit is answered synchronously, a miss may be a promise; another
     * company's version, or none, is undefined.
     */
    expressionOf: (companyId: string, versionId: string) =>
      versions.get(companyId, versionId, load, !sql.inTransaction),
    getProfileOfCompany: (id: string, companyId: string) => rowOfCompany(db, "profiles", id, companyId),
    profileByName: (companyId: string, name: string) =>
      db
        .selectFrom("profiles")
        .selectAll()
        .where("companyId", "=", companyId)
        .where("name", "=", name)
        .executeTakeFirst(),
    profilesOf: (companyId: string) => rowsOfCompany(sql, "profiles", companyId),
    insertProfile: (row: ProfileRow) => run(db.insertInto("profiles").values(row)),
    getVersionOfCompany: (id: string, companyId: string) => rowOfCompany(db, "profileVersions", id, companyId),
    /** A version with its profile's kind (binding checks: the right kind, published, the same company). */
    async versionWithKind(id: string) {
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
    versionsOf: (profileId: string) => newestFirst(profileId).execute(),
    latestVersionOf: (profileId: string) => newestFirst(profileId).limit(1).executeTakeFirst(),
    /** A profile's version ids, oldest version first. */
    async versionIdsOf(profileId: string) {
      const rows = await db
        .selectFrom("profileVersions")
        .select("id")
        .where("profileId", "=", profileId)
        .orderBy("version")
        .execute();
      return rows.map((v) => v.id);
    },
    insertVersion: (row: ProfileVersionRow) => run(db.insertInto("profileVersions").values(row)),
    publishVersion: (id: string, publishedAt: string) =>
      run(
        db
          .updateTable("profileVersions")
          .set({ status: "published", samplesPassed: true, publishedAt })
          .where("id", "=", id),
      ),
    /**
     * Removes the golden samples `mentions` accepts from a company's versions, in one transaction (an erasure): how
     * many. On PostgreSQL the versions are read `FOR UPDATE`: a second erasure at once waits, then reads what this one
     * left, and counts only what it removes itself.
     */
    eraseSamples: (companyId: string, mentions: (text: string) => boolean) =>
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
