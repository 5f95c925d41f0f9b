import jsonata from "jsonata";
import { classify } from "./classify.js";
import { HELPERS } from "./helpers/index.js";
import { LIMITS } from "./limits.js";
import { LinearRegExp, setRegexBudget } from "./linear-regexp.js";
import { Lru } from "./lru.js";
import { mappedOutcome } from "./outcome.js";
import type { EvaluateReply, EvaluateRequest } from "./protocol.js";
import { sourcePaths } from "./source-paths.js";
import { threadCpuMs } from "./thread-cpu.js";

interface Guardrails {
  timeout: number;
  stack: number;
  sequence: number;
  RegexEngine: RegExpConstructor;
}

interface Compiled {
  expression: string;
  program: jsonata.Expression;
  /** JSONata reads these during evaluation, so one evaluation's time limit is set here just before it runs. */
  guardrails: Guardrails;
  /** Derived from the AST the first time a validation error needs them. */
  sourcePaths?: Map<string, string>;
}

/**
 * Runs profile expressions inside a pool worker, one at a time, and finishes the job there: output checks and the
 * canonical validation run in the worker too, so the thread serving HTTP only posts a payload and receives a body.
 * Compiled programs are cached by version id (a version is immutable; the expression is compared as well, so a
 * reused id can never run stale code).
 */
export class Evaluator {
  private readonly cache: Lru<string, Compiled>;

  constructor(cacheSize: number = LIMITS.compiledCacheSize) {
    this.cache = new Lru(cacheSize);
  }

  async evaluate(request: EvaluateRequest): Promise<EvaluateReply> {
    const started = performance.now();
    let cpuAtStart = threadCpuMs();
    const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
    let compiled: Compiled | undefined;
    let output: unknown;
    try {
      compiled = this.compiled(request.versionId, request.expression);
      compiled.guardrails.timeout = request.timeoutMs;
      setRegexBudget(started + request.timeoutMs);
      cpuAtStart = threadCpuMs(); // the evaluation's CPU, not the compile's
      const result: unknown = await compiled.program.evaluate(request.payload);
      const json = JSON.stringify(result, dropFunctions);
      if (json !== undefined && json.length > LIMITS.outputChars) {
        const message = `mapped output is ${json.length} characters of JSON, over the ${LIMITS.outputChars} limit`;
        return { id: request.id, ok: false, kind: "guardrail", limit: "output", message, elapsedMs: elapsed() };
      }
      // The JSON round trip leaves plain data only: no lambdas, no sequence markers, no shared references.
      output = json === undefined ? undefined : JSON.parse(json);
    } catch (error) {
      const failure = classify(error);
      if (failure.kind === "guardrail" && failure.limit === "time" && starved(cpuAtStart, request.timeoutMs)) {
        const message = `the time limit passed after ${(threadCpuMs() - cpuAtStart).toFixed(1)} ms of CPU`;
        return { id: request.id, ok: false, kind: "starved", message, elapsedMs: elapsed() };
      }
      return { id: request.id, ...failure, elapsedMs: elapsed() };
    }
    const program = compiled;
    const outcome = mappedOutcome(request.kind, output, (field) => {
      program.sourcePaths ??= sourcePaths(program.program.ast());
      return program.sourcePaths.get(field);
    });
    return { id: request.id, ...outcome, elapsedMs: elapsed() };
  }

  private compiled(versionId: string, expression: string): Compiled {
    const hit = this.cache.get(versionId);
    if (hit && hit.expression === expression) return hit;
    const guardrails: Guardrails = {
      timeout: LIMITS.timeoutMs,
      stack: LIMITS.stackDepth,
      sequence: LIMITS.sequenceLength,
      // JSONata constructs it with the parsed RegExp and uses only lastIndex/exec; see linear-regexp.ts.
      RegexEngine: LinearRegExp as unknown as RegExpConstructor,
    };
    const program = jsonata(expression, guardrails);
    for (const [name, implementation] of Object.entries(HELPERS)) program.registerFunction(name, implementation);
    const compiled: Compiled = { expression, program, guardrails };
    this.cache.set(versionId, compiled);
    return compiled;
  }
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

/**
 * A JSONata lambda or function reference is an object holding its closure (and the environment, which is circular);
 * like a JS function it has no JSON form, so it is left out, as JSON.stringify leaves out functions.
 */
function dropFunctions(_key: string, value: unknown): unknown {
  if (typeof value === "function") return undefined;
  if (typeof value === "object" && value !== null && ("_jsonata_lambda" in value || "_jsonata_function" in value)) {
    return undefined;
  }
  return value;
}
