import jsonata from "jsonata";
import { Bailout, compileFast, type FastCompilation, type FastProgram, isTimeout } from "./compiler/index.js";
import { HELPERS } from "./helpers/index.js";
import { LIMITS } from "./limits.js";
import { LinearRegExp } from "./linear-regexp.js";
import type { Bindings } from "./types.js";

interface Guardrails {
  timeout: number;
  stack: number;
  sequence: number;
  RegexEngine: RegExpConstructor;
}

/**
 * The compiled path and the interpreter disagreed on one evaluation; the version is pinned to the interpreter. Only
 * the reason: the two answers are a vendor's mapped payload, personal data that must not reach a log.
 */
export interface Divergence {
  reason: string;
}

export interface ProgramOptions {
  /**
   * Try the synchronous compiled path (default true); off, every evaluation is interpreted. A function replaces the
   * compiler (the tests hand in a wrong one, to see the safety net catch it).
   */
  compiler?: boolean | ((ast: unknown) => FastCompilation);
  /** Evaluations of each version checked against the interpreter before the compiled path is trusted alone. */
  checkedEvaluations?: number;
  onDivergence?(divergence: Divergence): void;
}

/**
 * One profile version, ready to evaluate: JSONata's interpreter with its guardrails and the helpers, and —
 * when the whole expression is in the compiled subset — a synchronous compiled form that answers instead.
 *
 * The compiled form is trusted only as far as it is checked: its first `checkedEvaluations` results are compared with
 * the interpreter's, any failure of it is redone by the interpreter (which gives JSONata's own message and position),
 * and on the first disagreement the version is pinned to the interpreter for good.
 */
export class ProfileProgram {
  readonly interpreter: jsonata.Expression;
  /** JSONata reads these during evaluation, so one evaluation's time limit is set here just before it runs. */
  private readonly guardrails: Guardrails;
  private fast: FastProgram | undefined;
  private checksLeft: number;
  private readonly onDivergence: (divergence: Divergence) => void;

  constructor(
    readonly expression: string,
    options: ProgramOptions = {},
  ) {
    this.guardrails = {
      timeout: LIMITS.timeoutMs,
      stack: LIMITS.stackDepth,
      sequence: LIMITS.sequenceLength,
      // JSONata constructs it with the parsed RegExp and uses only lastIndex/exec; see linear-regexp.ts.
      RegexEngine: LinearRegExp as unknown as RegExpConstructor,
    };
    this.interpreter = jsonata(expression, this.guardrails);
    for (const [name, implementation] of Object.entries(HELPERS))
      this.interpreter.registerFunction(name, implementation);
    const compile =
      typeof options.compiler === "function" ? options.compiler : (ast: unknown) => compileFast(ast, HELPERS);
    const fast = options.compiler === false ? undefined : compile(this.interpreter.ast());
    this.fast = fast?.ok ? fast.program : undefined;
    this.checksLeft = options.checkedEvaluations ?? LIMITS.checkedEvaluations;
    this.onDivergence = options.onDivergence ?? (() => {});
  }

  /** Whether evaluations take the compiled path (false for an expression outside the subset, or once pinned). */
  get compiled(): boolean {
    return this.fast !== undefined;
  }

  /** Pins the version to the interpreter for good (another evaluator saw its compiled path disagree). */
  pin(): void {
    this.fast = undefined;
  }

  /**
   * Whether the compiled path now answers alone: the expression is in the subset, its checks against the interpreter
   * are done and none disagreed. Only then may the gateway evaluate it inline (inline.ts).
   */
  get trusted(): boolean {
    return this.fast !== undefined && this.checksLeft <= 0;
  }

  /**
   * The mapped value; throws what JSONata throws. `deadline` is performance.now() at which the time limit passes.
   * `bindings`: variables bound beside the payload; the compiled path binds none (a variable no block binds is outside
   * its subset), so such an evaluation is interpreted, and neither checks nor trusts the compiled path.
   */
  async evaluate(payload: unknown, timeoutMs: number, deadline: number, bindings?: Bindings): Promise<unknown> {
    if (bindings !== undefined) return this.interpret(payload, timeoutMs, bindings);
    const fast = this.fast;
    if (!fast) return this.interpret(payload, timeoutMs);
    let value: unknown;
    try {
      value = fast.evaluate(payload, timeoutMs);
    } catch (error) {
      if (isTimeout(error)) throw error;
      const answer = await this.interpret(payload, remaining(deadline));
      if (!(error instanceof Bailout)) this.diverged("the compiled path failed, the interpreter answered");
      return answer;
    }
    if (this.checksLeft <= 0) return value;
    let expected: unknown;
    try {
      // The check's own budget: what is left of the limit says nothing about the compiled answer.
      expected = await this.interpret(payload, timeoutMs);
    } catch (error) {
      // Out of time on a busy machine is no verdict; the check is made on a later evaluation.
      if (isTimeout(error)) return value;
      this.checksLeft--;
      this.diverged("the compiled path answered, the interpreter failed");
      throw error;
    }
    this.checksLeft--;
    if (json(expected) !== json(value)) this.diverged("the compiled path answered differently");
    return expected;
  }

  private interpret(payload: unknown, timeoutMs: number, bindings?: Bindings): Promise<unknown> {
    this.guardrails.timeout = timeoutMs;
    // JSONata binds them in a frame of this evaluation's own, so they never outlive it.
    return bindings === undefined
      ? this.interpreter.evaluate(payload)
      : this.interpreter.evaluate(payload, { ...bindings } as Record<string, unknown>);
  }

  private diverged(reason: string): void {
    this.fast = undefined;
    this.onDivergence({ reason });
  }
}

/** What is left of the time limit, at least 1 ms (JSONata reads a limit of 0 as none). */
function remaining(deadline: number): number {
  return Math.max(1, Math.ceil(deadline - performance.now()));
}

/** A result as the evaluator will use it: its JSON text (functions dropped, as the evaluator drops them). */
function json(value: unknown): string | undefined {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === "function" ? undefined : item));
}
