export { ERASURE_CHUNK } from "./erasure.js";
export type * from "./port.js";
export type * from "./row.js";
export { submissionRow } from "./row.js";
export { type SubmissionView, submissionStatusView } from "./status-view.js";
export { sqlSubmissionStore } from "./store.js";
