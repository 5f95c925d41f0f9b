export type { ProfileStore } from "./port.js";
export type { ProfileRow, ProfileVersionRow, StoredSample } from "./row.js";
export { sqlProfileStore } from "./store.js";
export { VersionCache } from "./version-cache.js";
