export type { UpstreamCredentialStore } from "./port.js";
export {
  type CredentialChange,
  type NewUpstreamCredential,
  SqliteUpstreamCredentialStore,
  type UpstreamCredentialRow,
} from "./store.js";
