export type { ProfileRow, ProfileVersionRow, StoredSample } from "./row.js";
export { type ProfileStore, sqlProfileStore } from "./store.js";
export { VersionCache } from "./version-cache.js";
