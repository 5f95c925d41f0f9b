export {
  type CredentialChange,
  type NewUpstreamCredential,
  type UpstreamCredentialRow,
  UpstreamCredentialStore,
} from "./store.js";
