export type * from "./port.js";
export type * from "./row.js";
export { SqlWebhookStore } from "./store.js";
