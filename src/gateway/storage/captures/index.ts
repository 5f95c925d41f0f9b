export type { CaptureStore } from "./port.js";
export type * from "./row.js";
export { sqlCaptureStore } from "./store.js";
