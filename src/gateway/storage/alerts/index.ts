export type { AlertStore } from "./port.js";
export type * from "./row.js";
export { sqlAlertStore } from "./store.js";
