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
  if (inline !== undefined) charge(1);
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
  if (inline !== undefined) charge(WORK_PER_TICK);
}

/**
 * The bounds of an inline evaluation (profiles/inline.ts), set while one runs on the thread that serves HTTP, where a
 * stall of a few milliseconds is felt by every other request:
 * - **work**: path steps, and whatever grows with the values it handles (stringifying, comparing, concatenating,
 *   joining, copying lists), is charged as it is done. The count depends on the expression and the payload only, so
 *   passing it is a verdict on the version, not an accident of a busy machine;
 * - **size**: no string or JSON text is built past `maxChars`;
 * - **wall time**, read every 1,024 units of work, as a backstop for work the count does not see (a very long
 *   expression evaluated per item of a list). It is also passed by a garbage collection or a preempted thread, so it
 *   only hands the evaluation on, for the evaluator's run to judge.
 * Any bound ends the run with OverBudget, and the evaluation is handed to an evaluator process, where the usual
 * guardrails apply.
 */
interface InlineBounds {
  deadline: number;
  wallMs: number;
  maxWork: number;
  maxChars: number;
  /** Work since the last clock read, and in all. */
  work: number;
  spent: number;
}

let inline: InlineBounds | undefined;
/** The work the last inline run was charged (the tests hold the shipped profiles far below the bound with it). */
let lastWork = 0;

/**
 * Work units between clock reads in an inline run: a node's evaluation is 4, a step of a path or filter 16, an item
 * added to a list 1, a character of text 1/64.
 */
const WORK_BETWEEN_CLOCK_READS = 1024;
const WORK_PER_NODE = 4;
const WORK_PER_TICK = 16;

/** An inline evaluation went past one of its bounds. */
export class OverBudget extends Error {
  override name = "OverBudget";

  constructor(
    readonly bound: "work" | "size" | "time",
    message: string,
  ) {
    super(message);
  }
}

/** Runs `evaluate` under inline bounds: `maxWork` units of work, values of at most `maxChars`, `wallMs` of wall time. */
export function withinBounds<T>(limits: { maxWork: number; maxChars: number; wallMs: number }, evaluate: () => T): T {
  const outer = inline;
  const bounds: InlineBounds = {
    deadline: performance.now() + limits.wallMs,
    wallMs: limits.wallMs,
    maxWork: limits.maxWork,
    maxChars: limits.maxChars,
    work: 0,
    spent: 0,
  };
  inline = bounds;
  try {
    const result = evaluate();
    checkClockInline(bounds);
    return result;
  } finally {
    inline = outer;
    lastWork = bounds.spent + bounds.work;
  }
}

function checkClockInline(bounds: InlineBounds): void {
  if (performance.now() > bounds.deadline) throw new OverBudget("time", "over the inline time budget");
}

/** Charges work to an inline run (nothing outside one), reading the clock when enough has been done. */
export function charge(units: number): void {
  if (inline === undefined) return;
  inline.work += units;
  if (inline.work < WORK_BETWEEN_CLOCK_READS) return;
  inline.spent += inline.work;
  inline.work = 0;
  if (inline.spent > inline.maxWork) throw new OverBudget("work", `over the inline work bound of ${inline.maxWork}`);
  checkClockInline(inline);
}

/** Charges one node's evaluation to an inline run, for code that evaluates a node without its compiled closure. */
export function chargeNode(): void {
  if (inline !== undefined) charge(WORK_PER_NODE);
}

/** `code`, charging each evaluation of it to an inline run: an AST node's evaluation is the unit of compiled work. */
export function charged(code: Code): Code {
  return (input, run) => {
    chargeNode();
    return code(input, run);
  };
}

/** The work the last inline run was charged, whether or not it finished. */
export function lastInlineWork(): number {
  return lastWork;
}

/** Charges text about to be built of `length` characters; past an inline run's `maxChars` it is not built at all. */
export function chargeChars(length: number): void {
  if (inline === undefined) return;
  if (length > inline.maxChars) throw new OverBudget("size", `a value of ${length} characters, over the inline bound`);
  charge(length >> 6);
}

/** The inline run's size bound, or undefined outside one (so callers can skip measuring). */
export function inlineMaxChars(): number | undefined {
  return inline?.maxChars;
}

/**
 * The time guardrail itself (JSONata's D1012), also read before every function call and when the evaluation ends: a
 * helper can be slow, and a thread that was descheduled must be reported as out of time, as the interpreter would.
 */
export function checkClock(run: Run): void {
  // An inline run's own wall-time bound, read with its work, is the stricter one: nothing to read here.
  if (inline !== undefined && inline.wallMs <= run.timeoutMs) return;
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
