export { ERASURE_CHUNK, type ScannedSubmission } from "./erasure.js";
export type * from "./row.js";
export { submissionRow } from "./row.js";
export { type SubmissionView, submissionStatusView } from "./status-view.js";
export { type SubmissionStore, sqlSubmissionStore } from "./store.js";
