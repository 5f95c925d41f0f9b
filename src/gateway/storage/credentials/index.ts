export type { UpstreamCredentialStore } from "./port.js";
export type { CredentialChange, NewUpstreamCredential, UpstreamCredentialRow } from "./row.js";
export { sqlUpstreamCredentialStore } from "./store.js";
