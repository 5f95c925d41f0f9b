/**
 * The mapping-profile engine: compile (syntax, line and column), contained evaluation in evaluator processes with
 * JSONata's guardrails, a linear-time regex engine and a hard deadline, lead-domain helper functions, canonical
 * validation, and golden samples. See docs/profiles.md.
 */

export { bindingsIssue } from "./bindings.js";
export { compileProfile, MAX_EXPRESSION_LENGTH, parseProfile } from "./compile.js";
export { type DiffEntry, formatDiff } from "./diff.js";
export { type MapInput, ProfileEngine, type ProfileEngineOptions } from "./engine.js";
export { EngineClosedError, EngineOverloadedError, EngineUnavailableError } from "./errors.js";
export { type DroppedKeyWarning, droppedWarnings, EXTRAS_KEY } from "./extras.js";
export { describe as describeOutcome, type GoldenReport, type GoldenResult, runGoldenSamples } from "./golden.js";
export type { InlineResult } from "./inline.js";
export { findProfileDirs, loadProfileDir, ProfileLoadError } from "./load.js";
export { expressionShape } from "./shape.js";
export type {
  Bindings,
  CompileError,
  CompileResult,
  EvaluationOptions,
  GoldenExpectation,
  GoldenSample,
  GuardrailLimit,
  LoadedProfile,
  MappedRecord,
  MappingErrorKind,
  MappingOutcome,
  ProfileKind,
  ProfileSource,
  RecordAction,
  RecordKind,
} from "./types.js";
export { PROFILE_KINDS, RECORD_ACTIONS, RECORD_KINDS } from "./types.js";
