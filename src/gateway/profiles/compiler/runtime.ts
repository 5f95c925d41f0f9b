import { LIMITS } from "../limits.js";

/**
 * What one compiled evaluation carries: the document for `$$`, the block variables (resolved to slots when the
 * expression was compiled), and the time budget. Compiled code is synchronous and has no lambdas, so one evaluation
 * never re-enters a block and a slot is always written before it is read.
 */
export interface Run {
  root: unknown;
  slots: unknown[];
  deadline: number;
  timeoutMs: number;
  ticks: number;
}

/** A compiled AST node: JSONata's `evaluate(expr, input, environment)` for that node, without the awaits. */
export type Code = (input: unknown, run: Run) => unknown;

/**
 * JSONata's sequences are arrays flagged `sequence` (evaluate() unwraps them: none → undefined, one → the item unless
 * `keepSingleton`); `cons` marks an array built by a constructor (never flattened into a path), `outerWrapper` the
 * singleton JSONata wraps around an array document. The same flags, on plain arrays, so helpers see what they would
 * see under the interpreter.
 */
export interface Sequence extends Array<unknown> {
  sequence?: boolean;
  keepSingleton?: boolean;
  outerWrapper?: boolean;
  cons?: boolean;
  tupleStream?: boolean;
}

/**
 * A value the compiled code does not handle exactly (a type a built-in's signature would reject, an equality between
 * an array and an object): not an error, the evaluation is simply redone by the interpreter.
 */
export class Bailout extends Error {
  override name = "Bailout";
}

/** An error shaped like JSONata's own (`{code, value}`); the interpreter's rerun supplies message and position. */
export interface CompiledFailure {
  code: string;
  value?: unknown;
  message?: string;
}

export function fail(code: string, value?: unknown): CompiledFailure {
  return { code, value };
}

export const TIMEOUT_CODE = "D1012";

export function isTimeout(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === TIMEOUT_CODE;
}

export function isSequence(value: unknown): value is Sequence {
  return Array.isArray(value) && (value as Sequence).sequence === true;
}

/** JSONata's `createSequence()`: an empty sequence. */
export function sequence(): Sequence {
  const result: Sequence = [];
  result.sequence = true;
  return result;
}

/** JSONata's `createSequence(item)`: a sequence of one (undefined included, as there). */
export function sequenceOf(item: unknown): Sequence {
  const result: Sequence = [item];
  result.sequence = true;
  return result;
}

/** A sequence's push, with JSONata's `sequence` guardrail (D2015 past LIMITS.sequenceLength items). */
export function push(target: Sequence, item: unknown): void {
  if (target.length >= LIMITS.sequenceLength) throw fail("D2015", LIMITS.sequenceLength);
  target.push(item);
}

const TICKS_BETWEEN_CLOCK_READS = 1024;

/**
 * The time guardrail in loops, read every 1024 iterations: the subset has no loops of its own, but a predicate over
 * a large array that walks `$$` again per item is quadratic, and JSONata would stop it at the time limit too.
 */
export function tick(run: Run): void {
  run.ticks++;
  if ((run.ticks & (TICKS_BETWEEN_CLOCK_READS - 1)) === 0) checkClock(run);
}

/**
 * The time guardrail itself (JSONata's D1012), also read before every function call and when the evaluation ends: a
 * helper can be slow, and a thread that was descheduled must be reported as out of time, as the interpreter would.
 */
export function checkClock(run: Run): void {
  if (Date.now() > run.deadline) {
    const message = `Evaluation timeout after ${run.timeoutMs} milliseconds. Check for infinite loop`;
    throw { code: TIMEOUT_CODE, value: run.timeoutMs, message } satisfies CompiledFailure;
  }
}

/** evaluate()'s last step for every node: unwrap a sequence of none or one, honouring `[]` (keepArray). */
export function settle(result: unknown, keepArray: boolean): unknown {
  if (!isSequence(result) || result.tupleStream) return result;
  if (keepArray) result.keepSingleton = true;
  if (result.length === 0) return undefined;
  if (result.length === 1) return result.keepSingleton ? result : result[0];
  return result;
}
