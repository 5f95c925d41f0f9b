import type { MaybePromise } from "../maybe.js";
import type { ProfileRow, ProfileVersionRow } from "./row.js";

/**
 * The profiles record as the capabilities use it (D-221). `expressionOf` is the cached read of intake and webhook
 * delivery: a hit is answered synchronously, a miss may be a promise; another company's version, or none, is undefined.
 */
export interface ProfileStore {
  expressionOf(companyId: string, versionId: string): MaybePromise<{ expression: string } | undefined>;
  getProfileOfCompany(id: string, companyId: string): Promise<ProfileRow | undefined>;
  profileByName(companyId: string, name: string): Promise<ProfileRow | undefined>;
  /** A company's profiles in the order they were created (D-251). */
  profilesOf(companyId: string): Promise<ProfileRow[]>;
  insertProfile(row: ProfileRow): Promise<void>;
  getVersionOfCompany(id: string, companyId: string): Promise<ProfileVersionRow | undefined>;
  /** A version with its profile's kind (binding checks: the right kind, published, the same company). */
  versionWithKind(id: string): Promise<{ version: ProfileVersionRow; kind: ProfileRow["kind"] } | undefined>;
  /** A profile's versions, newest first. */
  versionsOf(profileId: string): Promise<ProfileVersionRow[]>;
  latestVersionOf(profileId: string): Promise<ProfileVersionRow | undefined>;
  /** A profile's version ids, oldest version first. */
  versionIdsOf(profileId: string): Promise<string[]>;
  insertVersion(row: ProfileVersionRow): Promise<void>;
  publishVersion(id: string, publishedAt: string): Promise<void>;
  /**
   * Removes the golden samples `mentions` accepts from a company's versions, in one transaction (an erasure); the
   * versions are otherwise untouched. Returns how many were removed.
   */
  eraseSamples(companyId: string, mentions: (text: string) => boolean): Promise<number>;
}
