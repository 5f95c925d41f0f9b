export type * from "./port.js";
export type * from "./row.js";
export { sqlWebhookStore } from "./store.js";
