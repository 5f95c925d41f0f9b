export { ERASURE_CHUNK, type ScannedSubmission } from "./erasure.js";
export type { ChangeCursor, FailedSelection, SubmissionFilter } from "./reads.js";
export type {
  MappingFailureRow,
  NewSubmission,
  SubmissionAttemptRow,
  SubmissionRow,
} from "./row.js";
export { submissionRow } from "./row.js";
export { type SubmissionView, submissionStatusView } from "./status-view.js";
export {
  type Admissible,
  type AttemptRecord,
  type SubmissionChange,
  SubmissionStore,
} from "./store.js";
