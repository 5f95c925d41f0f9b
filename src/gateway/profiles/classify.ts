import { asJsonataFailure, isStackOverflow } from "./jsonata-error.js";
import { RegexGuardrailError, UnsupportedRegexError } from "./linear-regexp.js";
import type { GuardrailLimit, MappingOutcome, Untimed } from "./types.js";

export type EvaluationFailure = Untimed<Extract<MappingOutcome, { kind: "mapping" | "guardrail" }>>;

/** JSONata error codes that are guardrail breaches rather than mistakes in the mapping. */
const GUARDRAIL_CODES: Readonly<Record<string, GuardrailLimit>> = {
  D1011: "stack",
  D1012: "time",
  D2014: "sequence",
  D2015: "sequence",
};

/**
 * Sorts what stopped an evaluation: a guardrail (the containment refused to go on: intake answers 422 and records it for
 * the owner) or a mistake in the mapping (400 with JSONata's message and position).
 */
export function classify(error: unknown): EvaluationFailure {
  if (error instanceof RegexGuardrailError) {
    return { ok: false, kind: "guardrail", limit: error.limit, message: error.message };
  }
  if (error instanceof UnsupportedRegexError) {
    return { ok: false, kind: "guardrail", limit: "regex", message: error.message };
  }
  if (isStackOverflow(error)) {
    return { ok: false, kind: "guardrail", limit: "stack", message: "evaluation exceeded the worker's stack" };
  }
  if (error instanceof RangeError && /invalid (string|array) length/i.test(error.message)) {
    return {
      ok: false,
      kind: "guardrail",
      limit: "memory",
      message: `evaluation built a value too large: ${error.message}`,
    };
  }
  // $eval wraps whatever stopped the inner expression (D3121); a guardrail breach in there is still one.
  if (typeof error === "object" && error !== null && "code" in error && error.code === "D3121" && "error" in error) {
    const inner = classify(error.error);
    if (inner.kind === "guardrail") return inner;
  }
  const failure = asJsonataFailure(error);
  const limit = failure.code ? GUARDRAIL_CODES[failure.code] : undefined;
  if (limit) return { ok: false, kind: "guardrail", limit, message: failure.message };
  return failure.position === undefined
    ? { ok: false, kind: "mapping", message: failure.message }
    : { ok: false, kind: "mapping", message: failure.message, position: failure.position };
}

/**
 * The request could not be serialised for the evaluator. Intake passes parsed JSON, which always serialises unless it is
 * nested so deeply that JSON.stringify runs out of stack: that is the deep-nesting attack, refused like any other
 * guardrail breach. Anything else is a caller's bug, reported as a mapping error.
 */
export function unsendable(error: unknown): EvaluationFailure {
  if (error instanceof RangeError) {
    return { ok: false, kind: "guardrail", limit: "stack", message: "payload is nested too deeply to evaluate" };
  }
  const reason = error instanceof Error ? error.message : String(error);
  return { ok: false, kind: "mapping", message: `payload cannot be evaluated: ${reason}` };
}
