/**
 * Failures of the engine itself, not of a profile: thrown by `ProfileEngine.map` (a profile's own failures are
 * returned as a MappingOutcome). Intake answers these with 503 and `retry-after`; they are never the owner's fault.
 */
export class EngineOverloadedError extends Error {
  override name = "EngineOverloadedError";
  constructor(
    readonly queued: number,
    reason = `${queued} evaluations already waiting`,
  ) {
    super(`profile engine overloaded: ${reason}`);
  }
}

export class EngineClosedError extends Error {
  override name = "EngineClosedError";
  constructor() {
    super("profile engine is closed");
  }
}

export class EngineUnavailableError extends Error {
  override name = "EngineUnavailableError";
}
