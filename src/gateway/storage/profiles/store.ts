import type { MaybePromise } from "../maybe.js";
import { rowOfCompany, rowsOfCompany, type StoreSql } from "../sql/store-sql.js";
import type { ProfileStore } from "./port.js";
import type { ProfileRow, ProfileVersionRow } from "./row.js";
import type { VersionCache, VersionEntry } from "./version-cache.js";

/**
 * The profiles record — profiles and their versions: every statement on their tables is here, once for both databases
 * (D-275). Intake and webhook delivery read a version's expression through `expressionOf` (cached for good: a version
 * is immutable, D-248; synchronous on a hit); the owner's API creates, saves, publishes and rolls back; an erasure
 * removes samples.
 */
export class SqlProfileStore implements ProfileStore {
  readonly #sql: StoreSql;
  readonly #versions: VersionCache;
  readonly #load = (versionId: string): Promise<VersionEntry | undefined> =>
    this.#sql.db
      .selectFrom("profileVersions")
      .select(["companyId", "expression"])
      .where("id", "=", versionId)
      .executeTakeFirst();

  /** `versions`: the process's cache of versions, shared with the stores bound to its transactions. */
  constructor(sql: StoreSql, versions: VersionCache) {
    this.#sql = sql;
    this.#versions = versions;
  }

  /** A version's expression, read once (immutable) and kept; undefined for another company's version, or none. */
  expressionOf(companyId: string, versionId: string): MaybePromise<{ expression: string } | undefined> {
    return this.#versions.get(companyId, versionId, this.#load, !this.#sql.inTransaction);
  }

  getProfileOfCompany(id: string, companyId: string): Promise<ProfileRow | undefined> {
    return rowOfCompany(this.#sql.db, "profiles", id, companyId);
  }

  profileByName(companyId: string, name: string): Promise<ProfileRow | undefined> {
    return this.#sql.db
      .selectFrom("profiles")
      .selectAll()
      .where("companyId", "=", companyId)
      .where("name", "=", name)
      .executeTakeFirst();
  }

  /** A company's profiles in the order they were created (D-251). */
  profilesOf(companyId: string): Promise<ProfileRow[]> {
    return rowsOfCompany(this.#sql, "profiles", companyId);
  }

  async insertProfile(row: ProfileRow): Promise<void> {
    await this.#sql.db.insertInto("profiles").values(row).execute();
  }

  getVersionOfCompany(id: string, companyId: string): Promise<ProfileVersionRow | undefined> {
    return rowOfCompany(this.#sql.db, "profileVersions", id, companyId);
  }

  /** A version with its profile's kind (binding checks: the right kind, published, the same company). */
  async versionWithKind(id: string): Promise<{ version: ProfileVersionRow; kind: ProfileRow["kind"] } | undefined> {
    const row = await this.#sql.db
      .selectFrom("profileVersions")
      .innerJoin("profiles", "profiles.id", "profileVersions.profileId")
      .selectAll("profileVersions")
      .select("profiles.kind as profileKind")
      .where("profileVersions.id", "=", id)
      .executeTakeFirst();
    if (!row) return undefined;
    const { profileKind, ...version } = row;
    return { version, kind: profileKind };
  }

  /** A profile's versions, newest first. */
  versionsOf(profileId: string): Promise<ProfileVersionRow[]> {
    return this.#sql.db
      .selectFrom("profileVersions")
      .selectAll()
      .where("profileId", "=", profileId)
      .orderBy("version", "desc")
      .execute();
  }

  latestVersionOf(profileId: string): Promise<ProfileVersionRow | undefined> {
    return this.#sql.db
      .selectFrom("profileVersions")
      .selectAll()
      .where("profileId", "=", profileId)
      .orderBy("version", "desc")
      .limit(1)
      .executeTakeFirst();
  }

  /** A profile's version ids, oldest version first. */
  async versionIdsOf(profileId: string): Promise<string[]> {
    const rows = await this.#sql.db
      .selectFrom("profileVersions")
      .select("id")
      .where("profileId", "=", profileId)
      .orderBy("version")
      .execute();
    return rows.map((v) => v.id);
  }

  async insertVersion(row: ProfileVersionRow): Promise<void> {
    await this.#sql.db.insertInto("profileVersions").values(row).execute();
  }

  async publishVersion(id: string, publishedAt: string): Promise<void> {
    await this.#sql.db
      .updateTable("profileVersions")
      .set({ status: "published", samplesPassed: true, publishedAt })
      .where("id", "=", id)
      .execute();
  }

  /**
   * Removes the golden samples `mentions` accepts from a company's versions, in one transaction (an erasure); the
   * versions are otherwise untouched. Returns how many were removed. On PostgreSQL the versions are read `FOR UPDATE`:
   * a second erasure at once waits, then reads what this one left, and counts only what it removes itself.
   */
  eraseSamples(companyId: string, mentions: (text: string) => boolean): Promise<number> {
    return this.#sql.atomically(async (db) => {
      let removed = 0;
      const versions = await db
        .selectFrom("profileVersions")
        .select(["id", "samples"])
        .where("companyId", "=", companyId)
        .$if(this.#sql.dialect === "postgres", (q) => q.forUpdate())
        .execute();
      for (const version of versions) {
        const kept = version.samples.filter((sample) => !mentions(JSON.stringify(sample)));
        if (kept.length === version.samples.length) continue;
        removed += version.samples.length - kept.length;
        await db.updateTable("profileVersions").set({ samples: kept }).where("id", "=", version.id).execute();
      }
      return removed;
    }, "immediate");
  }
}
