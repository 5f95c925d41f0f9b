import { MAX_JSON_DEPTH, textNestsDeeper } from "../../http/json-depth.js";
import { classify } from "./classify.js";
import { LIMITS } from "./limits.js";
import { setRegexBudget } from "./linear-regexp.js";
import { Lru } from "./lru.js";
import { dropFunctions, mappedOutcome } from "./outcome.js";
import { type Divergence, ProfileProgram, type ProgramOptions } from "./program.js";
import type { EvaluateReply, EvaluateRequest } from "./protocol.js";
import { sourcePaths } from "./source-paths.js";
import { threadCpuMs } from "./thread-cpu.js";

interface Compiled {
  program: ProfileProgram;
  /** Derived from the AST the first time a validation error needs them. */
  sourcePaths?: Map<string, string>;
  /** Why the compiled path disagreed during the evaluation running now, for its reply. */
  diverged?: string;
  /** Whether it has been evaluated here before: the first evaluation also pays for the first run of its code. */
  evaluated?: boolean;
}

export interface EvaluatorOptions {
  /** Take the compiled fast path where an expression allows it (default true); see ProgramOptions. */
  compiler?: ProgramOptions["compiler"];
  /** Evaluations of each version also interpreted and compared (default LIMITS.checkedEvaluations). */
  checkedEvaluations?: number;
  /** Also told of a version whose compiled path disagreed with the interpreter (its reply says so in any case). */
  onDivergence?(versionId: string, divergence: Divergence): void;
  /**
   * Told when a request's time limit starts later than its arrival: after compiling its version, and before a cold first
   * run out of time runs once more (the pool times its hard deadline from then, D-379).
   */
  onTimed?(requestId: number): void;
}

/**
 * Runs profile expressions inside a pool evaluator, one at a time, and finishes the job there: output checks and the
 * canonical validation run in the evaluator too, so the thread serving HTTP only posts a payload and receives a body.
 * Compiled programs are cached by version id (a version is immutable; the expression is compared as well, so a
 * reused id can never run stale code). An expression in the compiled subset runs as synchronous JavaScript, checked
 * against JSONata's interpreter (program.ts).
 *
 * A version's first evaluation here runs its code for the first time (V8 compiles it then) and, on the compiled path,
 * interprets it as well: several times a warm evaluation's CPU. Out of time with less than half its limit as CPU (a
 * runaway alone on a core spends all of it), it ran cold on a busy machine: it is run once more, warm, and that run is
 * judged (D-379). The evaluator tells the pool when a request's time limit starts (after a compile, before a second
 * run), so that its hard deadline counts from there too.
 */
export class Evaluator {
  private readonly cache: Lru<string, Compiled>;
  private readonly options: EvaluatorOptions;

  constructor(cacheSize: number = LIMITS.compiledCacheSize, options: EvaluatorOptions = {}) {
    this.cache = new Lru(cacheSize);
    this.options = options;
  }

  /** Whether the version's evaluations take the compiled path (undefined until it has been evaluated here). */
  compiledPath(versionId: string): boolean | undefined {
    return this.cache.get(versionId)?.program.compiled;
  }

  async evaluate(request: EvaluateRequest): Promise<EvaluateReply> {
    const started = performance.now();
    // Read when the evaluation proper starts (below); only a time-limit failure, which needs that, looks at it.
    let cpuAtStart = 0;
    const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
    let compiled: Compiled | undefined;
    let output: unknown;
    // The reply says whether the compiled path disagreed in this evaluation; the engine ends its inline trust.
    const reply = <T extends EvaluateReply>(answer: T): T => {
      const diverged = compiled?.diverged;
      if (compiled) compiled.diverged = undefined;
      return diverged === undefined ? answer : { ...answer, diverged };
    };
    try {
      compiled = this.compiled(request.versionId, request.expression);
      if (request.interpretOnly) compiled.program.pin();
      let cold = !compiled.evaluated;
      compiled.evaluated = true;
      // Compiled just now: its time limit starts after the compile (the pool's deadline too).
      if (cold) await this.timed(request.id);
      let result: unknown;
      for (;;) {
        const deadline = performance.now() + request.timeoutMs;
        setRegexBudget(deadline);
        cpuAtStart = threadCpuMs(); // the evaluation's CPU, not the compile's
        try {
          result = await compiled.program.evaluate(request.payload, request.timeoutMs, deadline, request.bindings);
          break;
        } catch (error) {
          if (!cold || !outOfTime(error) || threadCpuMs() - cpuAtStart >= request.timeoutMs / LIMITS.coldRetryCpuShare)
            throw error;
          cold = false;
          await this.timed(request.id);
        }
      }
      const json = JSON.stringify(result, dropFunctions);
      if (json !== undefined && json.length > LIMITS.outputChars) {
        const message = `mapped output is ${json.length} characters of JSON, over the ${LIMITS.outputChars} limit`;
        return reply({ id: request.id, ok: false, kind: "guardrail", limit: "output", message, elapsedMs: elapsed() });
      }
      // What the gateway walks afterwards (validation, a diff, the answer) meets no nesting its requests could not have.
      if (json !== undefined && textNestsDeeper(json, MAX_JSON_DEPTH)) {
        const message = `mapped output nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`;
        return { id: request.id, ok: false, kind: "guardrail", limit: "output", message, elapsedMs: elapsed() };
      }
      // The JSON round trip leaves plain data only: no lambdas, no sequence markers, no shared references.
      output = json === undefined ? undefined : JSON.parse(json);
    } catch (error) {
      const failure = classify(error);
      if (failure.kind === "guardrail" && failure.limit === "time" && starved(cpuAtStart, request.timeoutMs)) {
        const message = `the time limit passed after ${(threadCpuMs() - cpuAtStart).toFixed(1)} ms of CPU`;
        return reply({ id: request.id, ok: false, kind: "starved", message, elapsedMs: elapsed() });
      }
      return reply({ id: request.id, ...failure, elapsedMs: elapsed() });
    }
    const program = compiled;
    const outcome = mappedOutcome(request.kind, output, (field) => {
      program.sourcePaths ??= sourcePaths(program.program.interpreter.ast());
      return program.sourcePaths.get(field);
    });
    const answer: EvaluateReply = reply({ id: request.id, ...outcome, elapsedMs: elapsed() });
    if (program.program.trusted) answer.trusted = true;
    if (request.measure) answer.cpuMs = threadCpuMs() - cpuAtStart;
    return answer;
  }

  /** Tells the pool the request's time limit starts now; the notice leaves before the run holds the thread. */
  private async timed(requestId: number): Promise<void> {
    if (!this.options.onTimed) return;
    this.options.onTimed(requestId);
    await new Promise((resolve) => setImmediate(resolve));
  }

  private compiled(versionId: string, expression: string): Compiled {
    const hit = this.cache.get(versionId);
    if (hit && hit.program.expression === expression) return hit;
    const options: ProgramOptions = {
      onDivergence: (divergence) => {
        compiled.diverged = divergence.reason;
        this.options.onDivergence?.(versionId, divergence);
      },
    };
    if (this.options.compiler !== undefined) options.compiler = this.options.compiler;
    if (this.options.checkedEvaluations !== undefined) options.checkedEvaluations = this.options.checkedEvaluations;
    const compiled: Compiled = { program: new ProfileProgram(expression, options) };
    this.cache.set(versionId, compiled);
    return compiled;
  }
}

/** JSONata's time limit, reached (the one guardrail a busy machine can breach for a profile that is not at fault). */
function outOfTime(error: unknown): boolean {
  const failure = classify(error);
  return failure.kind === "guardrail" && failure.limit === "time";
}

export function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

/**
 * JSONata's limit is wall-clock time. A runaway spends it computing; an evaluation whose thread got less than a
 * twentieth of it as CPU spent it waiting for a core, which says the machine is overloaded, not that the profile runs
 * away. A twentieth, not a half: on a busy machine a runaway still gets its share of a core, while a real mapping (well
 * under 1 ms of CPU) reaches the limit only when it got almost none.
 */
function starved(cpuAtStart: number, timeoutMs: number): boolean {
  return threadCpuMs() - cpuAtStart < timeoutMs / LIMITS.starvedThreadCpuShare;
}
