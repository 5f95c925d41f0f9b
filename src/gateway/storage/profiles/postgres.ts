import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { GatewayPgDb } from "../../../db/postgres.js";
import { profiles, profileVersions } from "../../../db/schema-pg/index.js";
import { type PgHandles, pgTransaction, preparedOn } from "../pg-handles.js";
import { PgVersionCache, versionExpression } from "./pg-version-cache.js";
import type { ProfileStore } from "./port.js";
import type { ProfileRow, ProfileVersionRow } from "./store.js";

/**
 * The profiles record on PostgreSQL — profiles and their versions (the twin of store.ts). Intake and webhook delivery
 * read a version's expression through `expressionOf`, cached for good (a version is immutable: D-248), synchronous on
 * a hit; the owner's API creates, saves, publishes and rolls back; an erasure removes samples.
 */
export class PostgresProfileStore implements ProfileStore {
  readonly #handles: PgHandles;
  readonly #db: GatewayPgDb;
  readonly #versions: PgVersionCache;
  readonly #load = async (versionId: string) => {
    const [row] = await preparedOn(this.#db, versionExpression).execute({ id: versionId });
    return row;
  };

  /** `versions`: the process's cache of versions, shared with the stores bound to its transactions. */
  constructor(handles: PgHandles, versions: PgVersionCache = new PgVersionCache()) {
    this.#handles = handles;
    this.#db = handles.db;
    this.#versions = versions;
  }

  /** A version's expression, read once (immutable) and kept; another company's version is a 404. */
  expressionOf(companyId: string, versionId: string): { expression: string } | Promise<{ expression: string }> {
    return this.#versions.get(companyId, versionId, this.#load, !this.#handles.inTransaction);
  }

  async getProfileOfCompany(id: string, companyId: string): Promise<ProfileRow | undefined> {
    const [row] = await this.#db
      .select()
      .from(profiles)
      .where(and(eq(profiles.id, id), eq(profiles.companyId, companyId)));
    return row;
  }

  async profileByName(companyId: string, name: string): Promise<ProfileRow | undefined> {
    const [row] = await this.#db
      .select()
      .from(profiles)
      .where(and(eq(profiles.companyId, companyId), eq(profiles.name, name)));
    return row;
  }

  /** A company's profiles in the order they were created (SQLite's order; docs/decisions.md, D-251). */
  async profilesOf(companyId: string): Promise<ProfileRow[]> {
    return this.#db
      .select()
      .from(profiles)
      .where(eq(profiles.companyId, companyId))
      .orderBy(asc(profiles.createdAt), sql`${profiles.id} collate "C"`);
  }

  async insertProfile(row: ProfileRow): Promise<void> {
    await this.#db.insert(profiles).values(row);
  }

  async getVersionOfCompany(id: string, companyId: string): Promise<ProfileVersionRow | undefined> {
    const [row] = await this.#db
      .select()
      .from(profileVersions)
      .where(and(eq(profileVersions.id, id), eq(profileVersions.companyId, companyId)));
    return row;
  }

  /** A version with its profile's kind (binding checks: the right kind, published, the same company). */
  async versionWithKind(id: string): Promise<{ version: ProfileVersionRow; kind: ProfileRow["kind"] } | undefined> {
    const [row] = await this.#db
      .select({ version: profileVersions, kind: profiles.kind })
      .from(profileVersions)
      .innerJoin(profiles, eq(profiles.id, profileVersions.profileId))
      .where(eq(profileVersions.id, id));
    return row;
  }

  /** A profile's versions, newest first. */
  async versionsOf(profileId: string): Promise<ProfileVersionRow[]> {
    return this.#db
      .select()
      .from(profileVersions)
      .where(eq(profileVersions.profileId, profileId))
      .orderBy(desc(profileVersions.version));
  }

  async latestVersionOf(profileId: string): Promise<ProfileVersionRow | undefined> {
    const [row] = await this.#db
      .select()
      .from(profileVersions)
      .where(eq(profileVersions.profileId, profileId))
      .orderBy(desc(profileVersions.version))
      .limit(1);
    return row;
  }

  /** A profile's version ids, oldest version first (SQLite reads them on its (profile, version) index). */
  async versionIdsOf(profileId: string): Promise<string[]> {
    const rows = await this.#db
      .select({ id: profileVersions.id })
      .from(profileVersions)
      .where(eq(profileVersions.profileId, profileId))
      .orderBy(asc(profileVersions.version));
    return rows.map((v) => v.id);
  }

  async insertVersion(row: ProfileVersionRow): Promise<void> {
    await this.#db.insert(profileVersions).values(row);
  }

  async publishVersion(id: string, publishedAt: string): Promise<void> {
    await this.#db
      .update(profileVersions)
      .set({ status: "published", samplesPassed: true, publishedAt })
      .where(eq(profileVersions.id, id));
  }

  /**
   * Removes the golden samples `mentions` accepts from a company's versions, in one transaction (an erasure); the
   * versions are otherwise untouched. Returns how many were removed. The versions are read `FOR UPDATE`: a second
   * erasure at once waits, then reads what this one left, and counts only what it removes itself.
   */
  async eraseSamples(companyId: string, mentions: (text: string) => boolean): Promise<number> {
    return pgTransaction(this.#handles, async (inside) => {
      let removed = 0;
      const versions = await inside.db
        .select({ id: profileVersions.id, samples: profileVersions.samples })
        .from(profileVersions)
        .where(eq(profileVersions.companyId, companyId))
        .for("update");
      for (const version of versions) {
        const kept = version.samples.filter((sample) => !mentions(JSON.stringify(sample)));
        if (kept.length === version.samples.length) continue;
        removed += version.samples.length - kept.length;
        await inside.db.update(profileVersions).set({ samples: kept }).where(eq(profileVersions.id, version.id));
      }
      return removed;
    });
  }
}
