export { type ProfileRow, ProfileStore, type ProfileVersionRow, type StoredSample } from "./store.js";
