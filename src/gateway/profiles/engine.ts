import type { Logger } from "../../log.js";
import { bindingsIssue } from "./bindings.js";
import { EngineClosedError, EngineOverloadedError } from "./errors.js";
import { InlineEvaluator, type InlineResult, type InlineStats, NOT_INLINE } from "./inline.js";
import { LIMITS } from "./limits.js";
import { Lru } from "./lru.js";
import { EvaluatorPool, type PoolOptions, type PoolRequest } from "./pool.js";
import type { EvaluateReply } from "./protocol.js";
import {
  type Bindings,
  type EvaluationOptions,
  type MappingOutcome,
  PROFILE_KINDS,
  type ProfileKind,
} from "./types.js";

export interface ProfileEngineOptions {
  /** Evaluator processes shared by all tenants (default 2), plus one for the suspect lane. */
  poolSize?: number;
  /** JSONata time limit per evaluation (default 50 ms). */
  timeoutMs?: number;
  /** Evaluations that may wait for an evaluator before `map` throws EngineOverloadedError (default 256). */
  maxQueue?: number;
  /** How far past the time limit an evaluator still burning CPU is killed (default 100 ms). */
  deadlineGraceMs?: number;
  /** Heap per evaluator in MB (default 96). */
  evaluatorHeapMb?: number;
  /** How long a version stays suspect after a guardrail breach (default 30 s; 0 turns the suspect lane and its evaluator off). */
  suspectForMs?: number;
  /** Time limit of a suspect version's evaluations (default 10 ms). */
  suspectTimeoutMs?: number;
  /** Map payloads of trusted compiled versions on the calling thread (default true; inline.ts). */
  inline?: boolean;
  /** Evaluator processes of the owner tooling's lane (default 1), started on its first evaluation. */
  toolingPoolSize?: number;
  log?: Logger;
}

export interface MapInput {
  versionId: string;
  kind: ProfileKind;
  expression: string;
  payload: unknown;
  /**
   * The payload's size as received (characters of its JSON text). Intake gives it: a version whose compiled path the
   * evaluators trust, past its probation, may then map a small payload inline (inline.ts).
   */
  payloadChars?: number;
  /**
   * Variables bound beside the payload (`{notification: …}` is `$notification`: a fetched record's notification,
   * docs/connections.md). Such an evaluation never runs inline nor on the compiled path: the evaluators interpret it.
   */
  bindings?: Bindings;
}

/**
 * Maps vendor payloads with profiles, contained (evaluator processes, guardrails): one per process, it owns the evaluator pools. `map` resolves with the
 * profile's outcome (its failures included) and throws only when the engine cannot evaluate at all
 * (EngineOverloadedError, EngineClosedError, EngineUnavailableError). `close()` before the process exits.
 *
 * A version that breached a guardrail is *suspect* for a while: its evaluations go to a separate one-evaluator lane with
 * a smaller time limit, so a profile that runs away on a vendor's real payloads (after passing its golden samples)
 * burns a fraction of one core and never occupies the evaluators other tenants are waiting for.
 *
 * The owner's tooling (previews, replays, golden samples run from the owner API: `tooling` in the options) has a lane
 * of its own, niced, and never runs inline: an owner replaying hundreds of payloads takes CPU that intake leaves over,
 * never an evaluator intake is waiting for, nor the thread serving HTTP.
 */
export class ProfileEngine {
  private readonly pool: EvaluatorPool;
  /** Started with the engine, not on the first breach: starting an evaluator under load is what the lane must not cost. */
  private readonly suspectLane: EvaluatorPool | undefined;
  private readonly poolOptions: PoolOptions;
  private readonly timeoutMs: number;
  private readonly suspectForMs: number;
  private readonly suspectTimeoutMs: number;
  /** versionId → when it last breached a guardrail (performance.now()). */
  private readonly suspects = new Lru<string, number>(1_000);
  /** versionId → its evaluations of real payloads that were quick (`quick`), up to the probation's. */
  private readonly proven = new Lru<string, number>(1_000);
  private readonly inline: InlineEvaluator | undefined;
  /** Started on the owner tooling's first evaluation: most processes (a queue worker, the CLI, tests) never need it. */
  private toolingLane: EvaluatorPool | undefined;
  private readonly toolingPoolSize: number;
  private closed = false;
  /**
   * Versions whose compiled path disagreed with JSONata's interpreter in some evaluator: never mapped inline again, and
   * interpreted by every evaluator. Kept for the process's life (a divergence is a bug in the compiled path, so rare).
   */
  private readonly pinned = new Set<string>();
  private divergences = 0;
  private readonly log: Logger | undefined;

  constructor(options: ProfileEngineOptions = {}) {
    this.log = options.log;
    this.timeoutMs = clampTimeout(options.timeoutMs ?? LIMITS.timeoutMs);
    this.suspectForMs = options.suspectForMs ?? LIMITS.suspectForMs;
    this.suspectTimeoutMs = clampTimeout(options.suspectTimeoutMs ?? LIMITS.suspectTimeoutMs);
    this.poolOptions = {
      name: "profiles",
      size: Math.max(1, options.poolSize ?? 2),
      maxQueue: options.maxQueue ?? 256,
      deadlineGraceMs: options.deadlineGraceMs ?? LIMITS.deadlineGraceMs,
      heapMb: options.evaluatorHeapMb ?? LIMITS.evaluatorHeapMb,
      compiledCacheSize: LIMITS.compiledCacheSize,
      ...(options.log ? { log: options.log } : {}),
    };
    this.pool = new EvaluatorPool(this.poolOptions);
    this.toolingPoolSize = Math.max(1, options.toolingPoolSize ?? 1);
    if (options.inline !== false) this.inline = new InlineEvaluator();
    if (this.suspectForMs > 0) {
      this.suspectLane = new EvaluatorPool({
        ...this.poolOptions,
        name: "profiles-suspect",
        size: 1,
        maxQueue: 8,
        nice: LIMITS.suspectNice,
      });
    }
  }

  /** Resolves once the evaluators have loaded (a server can await it before listening); `map` does not need it. */
  async ready(): Promise<void> {
    await Promise.all([this.pool.ready(), this.suspectLane?.ready()]);
  }

  /**
   * `tried`: what `tryInline` gave for this input, when the caller tried it first (intake does, to skip the awaits
   * when the mapping is done inline); otherwise it is tried here.
   */
  async map(input: MapInput, opts: EvaluationOptions = {}, tried?: InlineResult): Promise<MappingOutcome> {
    if (!PROFILE_KINDS.includes(input.kind)) throw new TypeError(`unknown profile kind: ${String(input.kind)}`);
    const request: PoolRequest = {
      versionId: input.versionId,
      kind: input.kind,
      expression: input.expression,
      payload: input.payload,
      timeoutMs: clampTimeout(opts.timeoutMs ?? this.timeoutMs),
    };
    if (input.bindings !== undefined) {
      const issue = bindingsIssue(input.bindings);
      if (issue !== undefined) throw new TypeError(issue);
      request.bindings = input.bindings;
    }
    if (this.pinned.has(input.versionId)) request.interpretOnly = true;
    if (opts.tooling) return this.mapTooling(request);
    const sample = opts.sample === true;
    const inline = tried ?? this.tryInline(input, opts);
    if (inline.outcome) return inline.outcome;
    // On probation, an evaluation is judged by its CPU time (D-380): the evaluator is asked for it.
    if (inline.overtime || this.onProbation(input.versionId, sample)) request.measure = true;
    let reply = await this.route(request, sample, false);
    // Starved (the limit passed while the evaluator waited for a core): not the profile's fault. Once more — on the
    // shared pool unless the version breached a limit lately (the niced lane is where a busy machine starves first) —
    // then 503.
    if (!reply.ok && reply.kind === "starved") reply = await this.route(request, sample, true);
    if (!reply.ok && reply.kind === "starved") throw new EngineOverloadedError(this.pool.stats().queued, reply.message);
    if (!reply.ok && reply.kind === "guardrail" && this.suspectForMs > 0) {
      this.suspects.set(input.versionId, performance.now());
    } else if (!sample && this.quick(reply)) {
      const proven = this.proven.get(input.versionId) ?? 0;
      if (proven < LIMITS.probationEvaluations) this.proven.set(input.versionId, proven + 1);
    }
    if (reply.diverged !== undefined) this.diverged(input.versionId, reply.diverged);
    else if (reply.trusted && !this.pinned.has(input.versionId)) this.inline?.trust(input.versionId, input.expression);
    const { id: _id, trusted: _trusted, cpuMs, diverged: _diverged, ...outcome } = reply;
    if (inline.overtime) this.inline?.judge(input.versionId, outcome, cpuMs, inline.offCpu);
    return outcome;
  }

  /**
   * Maps on the calling thread when the version is trusted and past its probation, has not breached a guardrail
   * lately, and the caller gave the payload's size and no time limit of its own (intake does; previews, replays and
   * samples do not). The outcome, or what `map` needs to go on (NOT_INLINE when it was not tried), so that `map`
   * given it does not judge the same request again.
   */
  tryInline(input: MapInput, opts: EvaluationOptions = {}): InlineResult {
    if (!this.inline || input.payloadChars === undefined || opts.sample || opts.tooling || opts.timeoutMs !== undefined)
      return NOT_INLINE;
    // The compiled path reads no binding (a variable no block binds is outside its subset): the interpreter's work.
    if (input.bindings !== undefined) return NOT_INLINE;
    if (this.pinned.has(input.versionId)) return NOT_INLINE;
    if ((this.proven.peek(input.versionId) ?? 0) < LIMITS.probationEvaluations) return NOT_INLINE;
    const breachedAt = this.suspects.peek(input.versionId);
    if (breachedAt !== undefined && performance.now() - breachedAt < this.suspectForMs) return NOT_INLINE;
    return this.inline.map({ ...input, payloadChars: input.payloadChars });
  }

  /**
   * An evaluator saw the version's compiled path disagree with JSONata's interpreter: it is no longer mapped inline,
   * every evaluator interprets it from now on, and the operator hears of it (counted in /metrics). Logged with the
   * version id and the reason only: the two answers were a vendor's mapped payload.
   */
  diverged(versionId: string, reason: string): void {
    this.divergences++;
    const first = !this.pinned.has(versionId);
    this.pinned.add(versionId);
    this.inline?.distrust(versionId);
    if (first) {
      this.log?.warn(
        { versionId, reason },
        "compiled profile path disagreed with the interpreter; version interpreted",
      );
    }
  }

  stats(): {
    pool: ReturnType<EvaluatorPool["stats"]>;
    suspectLane?: ReturnType<EvaluatorPool["stats"]>;
    toolingLane?: ReturnType<EvaluatorPool["stats"]>;
    inline?: InlineStats;
    /** Evaluations whose compiled path disagreed with the interpreter (each pins its version to the interpreter). */
    divergences: number;
  } {
    return {
      divergences: this.divergences,
      pool: this.pool.stats(),
      ...(this.suspectLane ? { suspectLane: this.suspectLane.stats() } : {}),
      ...(this.toolingLane ? { toolingLane: this.toolingLane.stats() } : {}),
      ...(this.inline ? { inline: this.inline.stats() } : {}),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.pool.close(), this.suspectLane?.close(), this.toolingLane?.close()]);
  }

  /**
   * An evaluation of the owner's tooling, on its own lane: with the suspect time limit when its version breached a
   * guardrail lately (a draft's id is its company and the shape of its expression, so a whitespace edit is still the
   * same suspect: preview.ts), once more when starved, then EngineOverloadedError (503). It proves nothing about a
   * version's behaviour on real payloads, so it does not count towards probation.
   */
  private async mapTooling(request: PoolRequest): Promise<MappingOutcome> {
    if (this.closed) throw new EngineClosedError();
    this.toolingLane ??= new EvaluatorPool({
      ...this.poolOptions,
      name: "profiles-tooling",
      size: this.toolingPoolSize,
      maxQueue: LIMITS.toolingQueue,
      nice: LIMITS.toolingNice,
    });
    const lane = this.toolingLane;
    const breachedAt = this.suspects.get(request.versionId);
    const suspect = breachedAt !== undefined && performance.now() - breachedAt < this.suspectForMs;
    const run = suspect ? { ...request, timeoutMs: Math.min(request.timeoutMs, this.suspectTimeoutMs) } : request;
    let reply = await lane.run(run);
    if (!reply.ok && reply.kind === "starved") reply = await lane.run(run);
    if (!reply.ok && reply.kind === "starved") throw new EngineOverloadedError(lane.stats().queued, reply.message);
    if (!reply.ok && reply.kind === "guardrail" && this.suspectForMs > 0) {
      this.suspects.set(request.versionId, performance.now());
    }
    if (reply.trusted) this.inline?.trust(request.versionId, request.expression);
    const { id: _id, trusted: _trusted, cpuMs: _cpuMs, ...outcome } = reply;
    return outcome;
  }

  /** Whether a real payload's evaluation of the version runs as on probation (samples never do). */
  private onProbation(versionId: string, sample: boolean): boolean {
    return !sample && (this.proven.get(versionId) ?? 0) < LIMITS.probationEvaluations;
  }

  /**
   * Whether an evaluation counts towards its version's probation (D-380): it ended within the suspect limit, or spent
   * less than that limit on a CPU. Its wall time alone is no evidence against the version: it holds the first
   * evaluation's compile, and on a loaded machine the niced lane's waits for a core, so a benign version would stay on
   * probation, and out of inline mapping, for as long as the machine is busy.
   */
  private quick(reply: EvaluateReply): boolean {
    return (
      reply.elapsedMs < this.suspectTimeoutMs || (reply.cpuMs !== undefined && reply.cpuMs < this.suspectTimeoutMs)
    );
  }

  /**
   * Where an evaluation runs. A version that breached a guardrail lately runs on the suspect lane with the suspect time
   * limit, and is refused when that lane is full. A version still on probation (fewer than `probationEvaluations` quick
   * evaluations of real payloads in this process: new, or this process is) also runs on the lane, as does a version
   * with an evaluation running longer than the suspect limit (a runaway's first request, before it has breached
   * anything), so a runaway's first requests do not take shared evaluators; but with their full limit, and on the shared
   * pool when the lane is full — it may just be a new version under load, a heavy mapping, or a busy machine. Golden
   * samples run on the shared pool: an owner's save should not wait behind a runaway.
   */
  private async route(request: PoolRequest, sample: boolean, starved: boolean): Promise<EvaluateReply> {
    const lane = this.suspectLane;
    if (!lane) return this.pool.run(request);
    const breachedAt = this.suspects.get(request.versionId);
    const breached = breachedAt !== undefined && performance.now() - breachedAt < this.suspectForMs;
    if (starved && !breached) return this.pool.run(request);
    const probation = this.onProbation(request.versionId, sample);
    if (!breached && !probation && !this.pool.runningLonger(request.versionId, this.suspectTimeoutMs)) {
      return this.pool.run(request);
    }
    try {
      return await lane.run(
        breached ? { ...request, timeoutMs: Math.min(request.timeoutMs, this.suspectTimeoutMs) } : request,
      );
    } catch (error) {
      if (!(error instanceof EngineOverloadedError)) throw error;
      if (!breached) return this.pool.run(request);
      // Refused unevaluated: the payload was never judged, so this is "retry later" (503), not a mapping failure (422)
      // — a version may have been made suspect by a breach on another payload, or by a machine too busy to tell.
      throw new EngineOverloadedError(
        error.queued,
        "this profile version recently exceeded its limits and its lane is full",
      );
    }
  }
}

function clampTimeout(ms: number): number {
  return Math.min(Math.max(Math.round(ms), 1), LIMITS.maxTimeoutMs);
}
