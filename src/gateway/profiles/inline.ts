import jsonata from "jsonata";
import { compileFast, type FastProgram, isTimeout, OverBudget, withinBounds } from "./compiler/index.js";
import { HELPERS } from "./helpers/index.js";
import { LIMITS } from "./limits.js";
import { Lru } from "./lru.js";
import { mappedOutcome } from "./outcome.js";
import type { MappingOutcome, ProfileKind } from "./types.js";

interface Version {
  expression: string;
  /** Inline runs out of time lately whose payload the evaluators then mapped quickly (a pause, not the profile). */
  strikes: number;
  /** Compiled on the first inline evaluation; null when this process could not compile it (it then never runs here). */
  program?: FastProgram | null;
  /** performance.now() until which the version is mapped by the evaluators again, after it went past a bound. */
  demotedUntil: number;
}

export interface InlineStats {
  /** Payloads mapped inline. */
  evaluations: number;
  /** Inline attempts handed to the evaluators: a failure to report, a corner the compiled path leaves, a bound. */
  handedOff: number;
  /** Versions demoted for a while (past the work or size bound, or the time bound as an evaluator confirmed). */
  demotions: number;
}

/** What an inline attempt gave: the outcome, or the evaluation is for the evaluators. */
export type InlineResult =
  | { outcome: MappingOutcome }
  /**
   * Handed to the evaluators; `overtime`: the run ran out of time, which the evaluators' run is to confirm (judge);
   * `offCpu`: it ran out while this process was mostly waiting for a CPU (D-364).
   */
  | { outcome?: undefined; overtime: boolean; offCpu?: boolean };

/** Not mapped inline, and nothing for the evaluators' run to judge. */
export const NOT_INLINE: InlineResult = { overtime: false };

/** How often an inline run reads the process's CPU time at most: against LIMITS.inlineWallMs, a small part of it. */
const CPU_MARK_MS = 2;

/**
 * Maps payloads on the thread serving HTTP, for versions proven safe to: the hop to an evaluator process (an IPC write
 * and wake-up each way, the payload serialised twice) costs more than a real mapping itself. Only the happy path runs
 * here; anything else is handed to the evaluators, which answer as they always do.
 *
 * A version is mapped inline only when all of this holds:
 * - an evaluator reported its compiled path trusted (in the lambda-free subset, so no loops or recursion of its own,
 *   and checked against JSONata's interpreter without a disagreement); the engine also requires its probation done;
 * - the payload is at most LIMITS.inlinePayloadChars as received;
 * - it has not gone past a bound in the last LIMITS.inlineDemotedForMs.
 *
 * Each inline run is bounded (compiler/runtime.ts): LIMITS.inlineMaxWork units of work, counted as the compiled code
 * runs; no string or JSON text past LIMITS.inlineMaxChars; LIMITS.inlineWallMs of wall time as a backstop. A version
 * that runs away on some payload therefore costs the thread serving HTTP a few milliseconds at most, once per demotion
 * period, and that payload is mapped by an evaluator under the usual guardrails. Only a valid body (or valid records,
 * D-300) is answered inline: mapping and validation failures come from the evaluators, with JSONata's messages and
 * the vendor's paths.
 */
export class InlineEvaluator {
  private readonly versions = new Lru<string, Version>(LIMITS.compiledCacheSize);
  private readonly counts: InlineStats = { evaluations: 0, handedOff: 0, demotions: 0 };
  /** The last reading of this process's CPU time, and when (performance.now()). */
  private cpuMark = { at: Number.NEGATIVE_INFINITY, cpuMs: 0 };

  /** An evaluator answered this version on its trusted compiled path. */
  trust(versionId: string, expression: string): void {
    const known = this.versions.get(versionId);
    if (known?.expression === expression) return;
    this.versions.set(versionId, { expression, strikes: 0, demotedUntil: 0 });
  }

  /** The version's compiled path disagreed with the interpreter in an evaluator: it is not mapped here any more. */
  distrust(versionId: string): void {
    this.versions.delete(versionId);
  }

  /**
   * The outcome of mapping `payload` inline when it is a valid body; otherwise the evaluation is for the evaluators (a
   * version not admitted, a payload too large, a failure, a corner the compiled path leaves, a bound passed).
   */
  map(input: {
    versionId: string;
    kind: ProfileKind;
    expression: string;
    payload: unknown;
    payloadChars: number;
  }): InlineResult {
    const version = this.admitted(input.versionId, input.expression);
    if (!version || input.payloadChars > LIMITS.inlinePayloadChars || input.kind === "outbound") return NOT_INLINE;
    const program = this.program(version);
    if (!program) return this.handOff(false);
    const started = performance.now();
    this.markCpu(started);
    let output: unknown;
    try {
      const bounds = { maxWork: LIMITS.inlineMaxWork, maxChars: LIMITS.inlineMaxChars, wallMs: LIMITS.inlineWallMs };
      output = withinBounds(bounds, () => program.evaluate(input.payload, LIMITS.timeoutMs));
    } catch (error) {
      const bound = error instanceof OverBudget ? error.bound : isTimeout(error) ? "time" : undefined;
      if (bound === "work" || bound === "size") this.demote(version);
      // Out of time while this process was mostly off the CPU (D-364): judged all the same, but unless the evaluators
      // find the payload slow, a preemption of this thread is no strike against the version.
      return this.handOff(bound === "time", bound === "time" && this.offCpu());
    }
    // The evaluator makes its output plain data with a JSON round trip. Not needed here: a lead or appointment is
    // answered only when its schema accepts it, and the parsed body is then a new object of the schema's primitive
    // fields, built by zod (no sequence flags, shared references or extra keys from the compiled output); records are
    // new objects too, of validated primitives and such bodies (records.ts).
    const outcome = mappedOutcome(input.kind, output, () => undefined);
    if (!outcome.ok) return this.handOff(false);
    this.counts.evaluations++;
    return { outcome: { ...outcome, elapsedMs: Math.round((performance.now() - started) * 1000) / 1000 } };
  }

  /**
   * After an inline run out of time, the evaluator's run of the same payload says whose fault it was: half as much CPU
   * there (or a guardrail), the profile's, and the version is demoted; less, a garbage collection or a preemption that
   * paused this thread, forgiven up to LIMITS.inlineStrikes times per demotion period. A measure taken while the
   * evaluator itself got under half a core (its run's wall time over twice its CPU time) is no evidence either way: on
   * an overloaded virtual machine a stolen slice counts as the thread's CPU, and a small payload measured 7.6 ms of CPU
   * in 23 ms there. It counts as a strike.
   */
  judge(versionId: string, evaluated: MappingOutcome, cpuMs: number | undefined, offCpu = false): void {
    const version = this.versions.get(versionId);
    if (!version) return;
    const guardrail = !evaluated.ok && evaluated.kind === "guardrail";
    const paused = cpuMs !== undefined && evaluated.elapsedMs > 2 * cpuMs;
    const slow = guardrail || cpuMs === undefined || (cpuMs >= LIMITS.inlineWallMs / 2 && !paused);
    if (slow) {
      this.demote(version);
      return;
    }
    // The inline run itself spent under half the backstop on a CPU (D-364): this thread was preempted, which on a
    // loaded machine happens to every version, and ten such in a demotion period used to move all intake to the
    // evaluators for a minute. No strike.
    if (offCpu) return;
    version.strikes++;
    if (version.strikes >= LIMITS.inlineStrikes) this.demote(version);
  }

  stats(): InlineStats {
    return { ...this.counts };
  }

  /** The version if it may be mapped inline now: trusted, compilable here, not demoted. */
  private admitted(versionId: string, expression: string): Version | undefined {
    const version = this.versions.peek(versionId);
    if (version === undefined || version.expression !== expression || version.program === null) return undefined;
    return performance.now() >= version.demotedUntil ? version : undefined;
  }

  private program(version: Version): FastProgram | null {
    if (version.program !== undefined) return version.program;
    try {
      const compiled = compileFast(jsonata(version.expression).ast(), HELPERS);
      version.program = compiled.ok ? compiled.program : null;
    } catch {
      version.program = null;
    }
    return version.program;
  }

  /**
   * Takes a reading of this process's CPU time, unless the last is under CPU_MARK_MS old: one system call per few
   * milliseconds, not one per request. An overtime run started at most that long after the reading.
   */
  private markCpu(now: number): void {
    if (now - this.cpuMark.at < CPU_MARK_MS) return;
    const { user, system } = process.cpuUsage();
    this.cpuMark = { at: now, cpuMs: (user + system) / 1_000 };
  }

  /**
   * Whether the process spent less than half the time backstop on a CPU since the last reading, while the run took the
   * whole backstop in wall time: the thread was waiting for a CPU (a loaded machine), as the evaluators' own measure
   * would say (`judge`). Every thread of the process counts, so a run that really spent its time errs towards "on".
   */
  private offCpu(): boolean {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1_000 - this.cpuMark.cpuMs < LIMITS.inlineWallMs / 2;
  }

  private demote(version: Version): void {
    version.demotedUntil = performance.now() + LIMITS.inlineDemotedForMs;
    version.strikes = 0;
    this.counts.demotions++;
  }

  private handOff(overtime: boolean, offCpu = false): InlineResult {
    this.counts.handedOff++;
    return offCpu ? { overtime, offCpu } : { overtime };
  }
}
