export type { ConnectionStore } from "./port.js";
export type { ConnectionChange, ConnectionRow, NewConnection } from "./row.js";
export { SqlConnectionStore } from "./store.js";
