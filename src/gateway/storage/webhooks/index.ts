export type * from "./row.js";
export { sqlWebhookStore, type WebhookStore } from "./store.js";
