export type { ProfileStore } from "./port.js";
export type { ProfileRow, ProfileVersionRow, StoredSample } from "./row.js";
export { SqlProfileStore } from "./store.js";
export { VersionCache } from "./version-cache.js";
