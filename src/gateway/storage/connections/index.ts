export type { ConnectionStore } from "./port.js";
export type { ConnectionChange, ConnectionRow, NewConnection, ProofFailureMinute } from "./row.js";
export { SqlConnectionStore } from "./store.js";
