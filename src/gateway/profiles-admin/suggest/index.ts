/**
 * Suggested profiles (docs/profiles.md, "Suggested profiles"): a JSONata mapping to start from, made from a few of an
 * unknown vendor's payloads, and the owner API's runner that makes it off the event loop.
 */
export {
  SuggestionBusyError,
  SuggestionClosedError,
  SuggestionError,
  SuggestionTimeoutError,
} from "./errors.js";
export { MAX_SUGGEST_PAYLOADS, SUGGEST_LIMITS, type SuggestLimits } from "./limits.js";
export { ProfileSuggester, type SuggesterOptions } from "./runner.js";
export { MAX_UNMAPPED, suggestProfile } from "./suggest.js";
export type { Confidence, FieldSuggestion, SuggestInput, Suggestion, SuggestKind, SuggestOptions } from "./types.js";
