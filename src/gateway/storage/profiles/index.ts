export type { ProfileStore } from "./port.js";
export { type ProfileRow, type ProfileVersionRow, SqliteProfileStore, type StoredSample } from "./store.js";
