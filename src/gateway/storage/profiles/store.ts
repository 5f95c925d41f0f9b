import { and, desc, eq } from "drizzle-orm";
import { profiles, profileVersions } from "../../../db/schema/index.js";
import type { StorageHandles } from "../handles.js";
import { VersionCache } from "./version-cache.js";

export type ProfileRow = typeof profiles.$inferSelect;
/** One immutable version of a profile: its expression and golden samples, draft or published. */
export type ProfileVersionRow = typeof profileVersions.$inferSelect;
export type { StoredSample } from "../../../db/schema/profile-versions.js";

/**
 * The profiles record — profiles and their versions: every statement on their tables is here. Intake and webhook
 * delivery read a version's expression through `expressionOf` (cached: a version is immutable); the owner's API
 * creates, saves, publishes and rolls back; an erasure removes samples. Synchronous on SQLite; on PostgreSQL the
 * cached read stays synchronous on a hit, the rest becomes promises.
 */
export class ProfileStore {
  readonly #db: StorageHandles["db"];
  readonly #sqlite: StorageHandles["sqlite"];
  readonly #versions: VersionCache;

  constructor(handles: StorageHandles) {
    this.#db = handles.db;
    this.#sqlite = handles.sqlite;
    this.#versions = new VersionCache(handles.db);
  }

  /** A version's expression, read once (immutable) and kept; another company's version is a 404. */
  expressionOf(companyId: string, versionId: string): { expression: string } {
    return this.#versions.get(companyId, versionId);
  }

  getProfileOfCompany(id: string, companyId: string): ProfileRow | undefined {
    return this.#db
      .select()
      .from(profiles)
      .where(and(eq(profiles.id, id), eq(profiles.companyId, companyId)))
      .get();
  }

  profileByName(companyId: string, name: string): ProfileRow | undefined {
    return this.#db
      .select()
      .from(profiles)
      .where(and(eq(profiles.companyId, companyId), eq(profiles.name, name)))
      .get();
  }

  profilesOf(companyId: string): ProfileRow[] {
    return this.#db.select().from(profiles).where(eq(profiles.companyId, companyId)).all();
  }

  insertProfile(row: ProfileRow): void {
    this.#db.insert(profiles).values(row).run();
  }

  getVersionOfCompany(id: string, companyId: string): ProfileVersionRow | undefined {
    return this.#db
      .select()
      .from(profileVersions)
      .where(and(eq(profileVersions.id, id), eq(profileVersions.companyId, companyId)))
      .get();
  }

  /** A version with its profile's kind (binding checks: the right kind, published, the same company). */
  versionWithKind(id: string): { version: ProfileVersionRow; kind: ProfileRow["kind"] } | undefined {
    return this.#db
      .select({ version: profileVersions, kind: profiles.kind })
      .from(profileVersions)
      .innerJoin(profiles, eq(profiles.id, profileVersions.profileId))
      .where(eq(profileVersions.id, id))
      .get();
  }

  /** A profile's versions, newest first. */
  versionsOf(profileId: string): ProfileVersionRow[] {
    return this.#db
      .select()
      .from(profileVersions)
      .where(eq(profileVersions.profileId, profileId))
      .orderBy(desc(profileVersions.version))
      .all();
  }

  latestVersionOf(profileId: string): ProfileVersionRow | undefined {
    return this.#db
      .select()
      .from(profileVersions)
      .where(eq(profileVersions.profileId, profileId))
      .orderBy(desc(profileVersions.version))
      .limit(1)
      .get();
  }

  versionIdsOf(profileId: string): string[] {
    return this.#db
      .select({ id: profileVersions.id })
      .from(profileVersions)
      .where(eq(profileVersions.profileId, profileId))
      .all()
      .map((v) => v.id);
  }

  insertVersion(row: ProfileVersionRow): void {
    this.#db.insert(profileVersions).values(row).run();
  }

  publishVersion(id: string, publishedAt: string): void {
    this.#db
      .update(profileVersions)
      .set({ status: "published", samplesPassed: true, publishedAt })
      .where(eq(profileVersions.id, id))
      .run();
  }

  /**
   * Removes the golden samples `mentions` accepts from a company's versions, in one transaction (an erasure); the
   * versions are otherwise untouched. Returns how many were removed.
   */
  eraseSamples(companyId: string, mentions: (text: string) => boolean): number {
    let removed = 0;
    this.#sqlite.transaction(() => {
      const versions = this.#db
        .select({ id: profileVersions.id, samples: profileVersions.samples })
        .from(profileVersions)
        .where(eq(profileVersions.companyId, companyId))
        .all();
      for (const version of versions) {
        const kept = version.samples.filter((sample) => !mentions(JSON.stringify(sample)));
        if (kept.length === version.samples.length) continue;
        removed += version.samples.length - kept.length;
        this.#db.update(profileVersions).set({ samples: kept }).where(eq(profileVersions.id, version.id)).run();
      }
    })();
    return removed;
  }
}
