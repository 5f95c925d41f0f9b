import type { Bindings, MappingOutcome, ProfileKind } from "./types.js";

/**
 * Messages between the pool and its evaluator processes, over the IPC channel as JSON: the payload arrives as a copy,
 * so an evaluator never holds a host object, and the outcome comes back as plain data (the evaluator has already
 * dropped anything JSON cannot carry), so no function or prototype crosses either way.
 */
export interface EvaluateRequest {
  id: number;
  versionId: string;
  kind: ProfileKind;
  expression: string;
  payload: unknown;
  /** Variables bound beside the payload: such an evaluation is interpreted (program.ts). */
  bindings?: Bindings;
  timeoutMs: number;
  /**
   * Report the evaluation's CPU time (`cpuMs` in the reply): the engine is judging an inline run that ran long, or an
   * evaluation of a version on probation (D-380).
   */
  measure?: boolean;
  /**
   * The version's compiled path disagreed with the interpreter in some evaluator: this one pins it to the interpreter
   * too (each evaluator checks only a version's first evaluations itself).
   */
  interpretOnly?: boolean;
}

/**
 * The time limit passed while the evaluator got little CPU (the machine is overloaded, the profile is not at fault):
 * the engine retries once, then reports overload (503) rather than a guardrail breach (422).
 */
export interface Starved {
  ok: false;
  kind: "starved";
  message: string;
  elapsedMs: number;
}

/**
 * `trusted`: the version's compiled path answered this evaluation alone, its checks against the interpreter done (the
 * engine may then evaluate it inline, on the thread serving HTTP; see inline.ts). `diverged`: in this evaluation the
 * compiled path disagreed with the interpreter (the reason only, never the answers: they are a vendor's data); the
 * evaluator has pinned the version to the interpreter.
 */
export type EvaluateReply = { id: number; trusted?: boolean; cpuMs?: number; diverged?: string } & (
  | MappingOutcome
  | Starved
);

/**
 * The pool sends jobs as an array (those dispatched together travel in one write); the evaluator answers each as soon
 * as it is done, in order. `cpuMs`: the evaluator's CPU time so far, so the pool can tell a
 * runaway (burning CPU) from a starved evaluator.
 */
export type EvaluatorMessage =
  | { type: "ready"; cpuMs: number }
  | { type: "replies"; cpuMs: number; replies: EvaluateReply[] }
  /**
   * The running request's time limit starts now (its version was just compiled, or its cold first run ran out of time
   * and it runs once more): the pool times its hard deadline from here (D-379).
   */
  | { type: "timed"; cpuMs: number; id: number };
