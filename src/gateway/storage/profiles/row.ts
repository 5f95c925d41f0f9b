import type { profiles, profileVersions } from "../../../db/schema/index.js";

export type ProfileRow = typeof profiles.$inferSelect;
/** One immutable version of a profile: its expression and golden samples, draft or published. */
export type ProfileVersionRow = typeof profileVersions.$inferSelect;
export type { StoredSample } from "../../../db/schema/profile-versions.js";
