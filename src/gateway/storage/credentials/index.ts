export type { CredentialChange, NewUpstreamCredential, UpstreamCredentialRow } from "./row.js";
export { sqlUpstreamCredentialStore, type UpstreamCredentialStore } from "./store.js";
