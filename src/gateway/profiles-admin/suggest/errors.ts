/**
 * Why a suggestion was not made, each with a stable `code` the owner API maps to its answer (docs/owner-api.md):
 * the one thread busy with a full queue (`suggest_busy`, 503), past the time limit (`suggest_timeout`, 422), the
 * suggester closed (`suggest_closed`, 503), or a fault of the suggester (`suggest_failed`, 500).
 */
export class SuggestionBusyError extends Error {
  override name = "SuggestionBusyError";
  readonly code = "suggest_busy";
}

export class SuggestionTimeoutError extends Error {
  override name = "SuggestionTimeoutError";
  readonly code = "suggest_timeout";
}

export class SuggestionClosedError extends Error {
  override name = "SuggestionClosedError";
  readonly code = "suggest_closed";
}

/** The suggestion could not be made: a fault of the suggester (its expression did not compile, its thread died). */
export class SuggestionError extends Error {
  override name = "SuggestionError";
  readonly code = "suggest_failed";
}
