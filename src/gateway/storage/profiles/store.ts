import { and, desc, eq } from "drizzle-orm";
import { profiles, profileVersions } from "../../../db/schema/index.js";
import type { StorageHandles } from "../handles.js";
import type { GateView } from "../sqlite-gate.js";
import type { ProfileStore } from "./port.js";
import { VersionCache } from "./version-cache.js";

export type ProfileRow = typeof profiles.$inferSelect;
/** One immutable version of a profile: its expression and golden samples, draft or published. */
export type ProfileVersionRow = typeof profileVersions.$inferSelect;
export type { StoredSample } from "../../../db/schema/profile-versions.js";

/**
 * The profiles record — profiles and their versions: every statement on their tables is here. Intake and webhook
 * delivery read a version's expression through `expressionOf` (cached: a version is immutable); the owner's API
 * creates, saves, publishes and rolls back; an erasure removes samples. The SQLite implementation of port.ts (D-221): every method waits at the connection's gate while an
 * asynchronous transaction holds it (sqlite-gate.ts, D-222), and otherwise runs on the calling thread at once.
 */
export class SqliteProfileStore implements ProfileStore {
  readonly #db: StorageHandles["db"];
  readonly #sqlite: StorageHandles["sqlite"];
  readonly #versions: VersionCache;

  readonly #gate: GateView;

  constructor(handles: StorageHandles) {
    this.#gate = handles.gate;
    this.#db = handles.db;
    this.#sqlite = handles.sqlite;
    this.#versions = new VersionCache(handles.db);
  }

  /** A version's expression, read once (immutable) and kept; another company's version is a 404. */
  expressionOf(companyId: string, versionId: string): { expression: string } | Promise<{ expression: string }> {
    if (this.#gate.busy) return this.#gate.pass().then(() => this.expressionOf(companyId, versionId));
    return this.#versions.get(companyId, versionId);
  }

  async getProfileOfCompany(id: string, companyId: string): Promise<ProfileRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(profiles)
      .where(and(eq(profiles.id, id), eq(profiles.companyId, companyId)))
      .get();
  }

  async profileByName(companyId: string, name: string): Promise<ProfileRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(profiles)
      .where(and(eq(profiles.companyId, companyId), eq(profiles.name, name)))
      .get();
  }

  async profilesOf(companyId: string): Promise<ProfileRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db.select().from(profiles).where(eq(profiles.companyId, companyId)).all();
  }

  async insertProfile(row: ProfileRow): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.insert(profiles).values(row).run();
  }

  async getVersionOfCompany(id: string, companyId: string): Promise<ProfileVersionRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(profileVersions)
      .where(and(eq(profileVersions.id, id), eq(profileVersions.companyId, companyId)))
      .get();
  }

  /** A version with its profile's kind (binding checks: the right kind, published, the same company). */
  async versionWithKind(id: string): Promise<{ version: ProfileVersionRow; kind: ProfileRow["kind"] } | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select({ version: profileVersions, kind: profiles.kind })
      .from(profileVersions)
      .innerJoin(profiles, eq(profiles.id, profileVersions.profileId))
      .where(eq(profileVersions.id, id))
      .get();
  }

  /** A profile's versions, newest first. */
  async versionsOf(profileId: string): Promise<ProfileVersionRow[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(profileVersions)
      .where(eq(profileVersions.profileId, profileId))
      .orderBy(desc(profileVersions.version))
      .all();
  }

  async latestVersionOf(profileId: string): Promise<ProfileVersionRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select()
      .from(profileVersions)
      .where(eq(profileVersions.profileId, profileId))
      .orderBy(desc(profileVersions.version))
      .limit(1)
      .get();
  }

  async versionIdsOf(profileId: string): Promise<string[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#db
      .select({ id: profileVersions.id })
      .from(profileVersions)
      .where(eq(profileVersions.profileId, profileId))
      .all()
      .map((v) => v.id);
  }

  async insertVersion(row: ProfileVersionRow): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#db.insert(profileVersions).values(row).run();
  }

  async publishVersion(id: string, publishedAt: string): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
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
  async eraseSamples(companyId: string, mentions: (text: string) => boolean): Promise<number> {
    while (this.#gate.busy) await this.#gate.pass();
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
