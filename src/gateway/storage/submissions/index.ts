export { ERASURE_CHUNK } from "./erasure.js";
export type {
  Admissible,
  AttemptRecord,
  ChangeCursor,
  FailedSelection,
  FetchChange,
  KeyCounts,
  ScanBy,
  ScannedSubmission,
  SubmissionChange,
  SubmissionFilter,
  SubmissionStore,
  SubmissionTimes,
} from "./port.js";
export type {
  MappingFailureRow,
  NewMappingFailure,
  NewSubmission,
  SubmissionAttemptRow,
  SubmissionRow,
} from "./row.js";
export { submissionRow } from "./row.js";
export { type SubmissionView, submissionStatusView } from "./status-view.js";
export { SqlSubmissionStore } from "./store.js";
