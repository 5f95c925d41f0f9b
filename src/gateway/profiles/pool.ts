import type { Logger } from "../../log.js";
import { unsendable } from "./classify.js";
import { EngineClosedError, EngineOverloadedError, EngineUnavailableError } from "./errors.js";
import { type EvaluatorExit, EvaluatorProcess } from "./evaluator-process.js";
import { LIMITS } from "./limits.js";
import type { EvaluateReply, EvaluateRequest, EvaluatorMessage } from "./protocol.js";
import type { GuardrailLimit } from "./types.js";

export interface PoolOptions {
  name: string;
  size: number;
  /** Evaluations allowed to wait for an evaluator; one more is refused with EngineOverloadedError. */
  maxQueue: number;
  /** An evaluator whose evaluation outlives its JSONata time limit by this much is killed and replaced. */
  deadlineGraceMs: number;
  heapMb: number;
  /** The evaluators' scheduling priority (nice); the suspect lane runs niced so a runaway only gets spare CPU. */
  nice?: number;
  compiledCacheSize: number;
  /** Jobs sent to one evaluator's pipe at a time (default `PIPELINE_DEPTH`, 8; 1 turns pipelining off). */
  pipelineDepth?: number;
  log?: Logger;
}

export type PoolRequest = Omit<EvaluateRequest, "id">;

interface Job {
  id: number;
  request: PoolRequest;
  resolve(reply: EvaluateReply): void;
  reject(error: Error): void;
  /**
   * Taken back from an evaluator stuck on the job ahead of it and sent elsewhere (see `rescue`): the evaluator will still
   * evaluate it, so it stays in that evaluator's list, but whichever answer comes first settles the request.
   */
  rescued?: boolean;
}

interface Slot {
  worker: EvaluatorProcess;
  /** Settles when the evaluator has loaded (rejects if it cannot start). */
  started: Promise<void>;
  markStarted(error?: Error): void;
  ready: boolean;
  retired: boolean;
  /** Sent and not yet answered, in order: the evaluator runs the first, the rest wait in its pipe. */
  jobs: Job[];
  /** When the first job became the one running (as this thread saw it). */
  startedAt: number;
  /** When the running job's deadline started: its start, or as the evaluator said (after a compile, a second run). */
  timedFrom: number;
  /** The evaluator's CPU time as of its last message. */
  cpuMs: number;
  timer?: NodeJS.Timeout | undefined;
}

/**
 * Under load more jobs are sent to a busy evaluator, so it finds the next ones in its pipe instead of idling for two
 * process wake-ups per job; only behind a job that started moments ago (a real mapping takes a fraction of a
 * millisecond), so nothing queues behind a slow or runaway evaluation. If the evaluator is killed, the jobs behind are
 * sent elsewhere. A job an evaluator runs away on for the first time can hold up to PIPELINE_DEPTH - 1 others until its
 * deadline; after that its version is suspect and runs on its own lane.
 */
const PIPELINE_DEPTH = 8;
const PIPELINE_BEHIND_MS = 2;
/**
 * Jobs waiting in an evaluator's pipe behind a job that has run this long are sent to another evaluator too (`rescue`): a
 * real mapping takes a fraction of a millisecond, a runaway takes the whole time limit.
 */
const RESCUE_AFTER_MS = 10;

/** How many deadlines a starved evaluator (one that got little CPU, see `deadline`) is given before it is replaced. */
const STARVED_DEADLINES = 10;

/**
 * A fixed set of evaluator processes, so a runaway expression occupies an evaluator, never the event loop that serves every
 * tenant. An evaluator evaluates one job at a time; up to `PIPELINE_DEPTH` more wait in its pipe, sent only behind a job that
 * started under `PIPELINE_BEHIND_MS` ago (docs/decisions.md, D-090); the rest wait in a bounded FIFO queue. JSONata stops most runaways
 * itself (time, stack, sequence); one that does not cooperate (a native call that never returns to the evaluator, a
 * heap blown in one allocation) is killed at the hard deadline, or dies, and a fresh evaluator takes its place.
 */
export class EvaluatorPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private dispatchScheduled = false;
  private watch: NodeJS.Timeout | undefined;
  private closed = false;
  private startFailures = 0;
  private restartCount = 0;

  constructor(private readonly options: PoolOptions) {
    for (let i = 0; i < options.size; i++) this.slots.push(this.spawn());
  }

  run(request: PoolRequest): Promise<EvaluateReply> {
    if (this.closed) return Promise.reject(new EngineClosedError());
    if (this.queue.length >= this.options.maxQueue) return Promise.reject(new EngineOverloadedError(this.queue.length));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, request, resolve, reject });
      // An idle evaluator takes it now; busy ones get what gathers in this turn together, after it.
      if (this.slots.some((s) => s.ready && !s.retired && s.jobs.length === 0)) this.dispatch();
      else this.scheduleDispatch();
    });
  }

  /**
   * Requests that arrive in one turn of the event loop (one per socket that had data) are dispatched together, after
   * the turn: an evaluator then gets them in one write. Each write wakes the evaluator, and on a busy machine the kernel
   * often hands it the core at once, so the thread serving HTTP stalls in the write; one write per turn, not per job.
   */
  private scheduleDispatch(): void {
    if (this.dispatchScheduled) return;
    this.dispatchScheduled = true;
    setImmediate(() => {
      this.dispatchScheduled = false;
      this.dispatch();
    });
  }

  /** Resolves when every evaluator has loaded; rejects when one cannot start. Optional: `run` waits anyway. */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.started));
  }

  /** Whether an evaluation of this version has been running on an evaluator for longer than `ms`. */
  runningLonger(versionId: string, ms: number): boolean {
    const since = performance.now() - ms;
    return this.slots.some((s) => s.jobs[0]?.request.versionId === versionId && s.startedAt < since && !s.retired);
  }

  stats(): { workers: number; ready: number; busy: number; queued: number; restarts: number } {
    const live = this.slots.filter((s) => !s.retired);
    return {
      workers: live.length,
      ready: live.filter((s) => s.ready).length,
      busy: live.filter((s) => s.jobs.length > 0).length,
      queued: this.queue.length,
      restarts: this.restartCount,
    };
  }

  /** Refuses new work, fails what is still queued, lets running evaluations finish (each is deadline-bounded). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watch);
    for (const job of this.queue.splice(0)) job.reject(new EngineClosedError());
    while (this.slots.some((s) => s.jobs.length > 0 && !s.retired)) await new Promise((r) => setTimeout(r, 5));
    await Promise.all(this.slots.map((slot) => this.retire(slot)));
  }

  /**
   * Idle evaluators first, the queue shared evenly between them; then, while jobs remain, the pipes of evaluators whose
   * current job started moments ago, up to the pipeline depth.
   */
  private dispatch(): void {
    if (this.queue.length === 0) return;
    const ready = this.slots.filter((s) => s.ready && !s.retired);
    const depth = this.options.pipelineDepth ?? PIPELINE_DEPTH;
    const idle = ready.filter((slot) => slot.jobs.length === 0);
    const share = Math.ceil(this.queue.length / Math.max(1, idle.length));
    for (const slot of idle) this.send(slot, Math.min(share, depth));
    const now = performance.now();
    for (const slot of ready) {
      if (this.queue.length === 0) return;
      if (slot.jobs.length < depth && now - slot.startedAt < PIPELINE_BEHIND_MS) {
        this.send(slot, depth - slot.jobs.length);
      }
    }
  }

  /** Up to `count` jobs from the queue to one evaluator, in one message. */
  private send(slot: Slot, count: number): void {
    const jobs = this.take(slot, count);
    if (jobs.length === 0) return;
    const first = slot.jobs.length === 0;
    slot.jobs.push(...jobs);
    if (first) this.startFirst(slot);
    if (slot.jobs.length > 1) this.watchPipes();
    try {
      slot.worker.send(jobs.map((job) => ({ id: job.id, ...job.request })));
    } catch {
      // One of them cannot be serialised (a payload nested too deeply): send them one by one to find which.
      for (const job of jobs) {
        try {
          slot.worker.send([{ id: job.id, ...job.request }]);
        } catch (error) {
          this.settle(slot, { id: job.id, ...unsendable(error), elapsedMs: 0 });
        }
      }
    }
  }

  /**
   * The oldest queued jobs this evaluator may take. While other versions have work, one version occupies at most all
   * evaluators but one: a profile that runs away on the payloads of a burst (several of its requests at once, before any
   * has breached a limit) holds one evaluator, not every evaluator the other tenants are waiting for. Alone, a version
   * uses every evaluator.
   */
  private take(slot: Slot, count: number): Job[] {
    const live = this.slots.filter((s) => s.ready && !s.retired);
    const cap = Math.max(1, live.length - 1);
    const taken: Job[] = [];
    for (let i = 0; i < this.queue.length && taken.length < count; ) {
      const job = this.queue[i] as Job;
      if (this.mayTake(slot, job.request.versionId, live, cap, taken)) {
        taken.push(job);
        this.queue.splice(i, 1);
      } else i++;
    }
    return taken;
  }

  private mayTake(slot: Slot, versionId: string, live: Slot[], cap: number, taken: Job[]): boolean {
    // A rescued job no longer holds its evaluator for its version: its copy does, wherever it runs.
    const has = (jobs: Job[]) => jobs.some((j) => !j.rescued && j.request.versionId === versionId);
    if (has(slot.jobs) || has(taken)) return true;
    const occupied = live.filter((s) => s !== slot && has(s.jobs)).length;
    if (occupied < cap) return true;
    const other = (jobs: Job[]) => jobs.some((j) => !j.rescued && j.request.versionId !== versionId);
    return !other(this.queue) && !live.some((s) => other(s.jobs));
  }

  /** While some evaluator has jobs waiting in its pipe, looks every few milliseconds for one stuck behind a long job. */
  private watchPipes(): void {
    if (this.watch) return;
    this.watch = setInterval(() => {
      const now = performance.now();
      let waiting = false;
      for (const slot of this.slots) {
        if (slot.retired || slot.jobs.length < 2) continue;
        if (now - slot.startedAt >= RESCUE_AFTER_MS) this.rescue(slot);
        waiting ||= slot.jobs.length > 1;
      }
      if (!waiting) {
        clearInterval(this.watch);
        this.watch = undefined;
      }
    }, RESCUE_AFTER_MS / 2);
    this.watch.unref();
  }

  /**
   * The job an evaluator runs has taken RESCUE_AFTER_MS: the jobs of other versions waiting behind it go back to the front
   * of the queue as copies, for another evaluator. The originals stay in this evaluator's list, since it will evaluate them
   * anyway; the first answer settles each request (evaluation is pure, both answers are the same). Jobs of the running
   * job's own version stay: if it runs away on them too, they must not take a second evaluator.
   */
  private rescue(slot: Slot): void {
    const running = slot.jobs[0];
    if (!running) return;
    const copies: Job[] = [];
    for (const job of slot.jobs.slice(1)) {
      if (job.rescued || job.request.versionId === running.request.versionId) continue;
      job.rescued = true;
      copies.push({ id: this.nextId++, request: job.request, resolve: job.resolve, reject: job.reject });
    }
    if (copies.length === 0) return;
    this.queue.unshift(...copies);
    this.dispatch();
  }

  private startFirst(slot: Slot): void {
    if (!slot.jobs[0]) return;
    slot.startedAt = performance.now();
    this.timeFirst(slot);
  }

  /** The running job's deadline, from now: its time limit plus the grace. */
  private timeFirst(slot: Slot): void {
    const job = slot.jobs[0];
    if (!job) return;
    clearTimeout(slot.timer);
    const timedFrom = performance.now();
    slot.timedFrom = timedFrom;
    const deadlineMs = job.request.timeoutMs + this.options.deadlineGraceMs;
    slot.timer = setTimeout(() => this.deadline(slot, job, deadlineMs, timedFrom), deadlineMs);
  }

  /** Answers a job of this evaluator; the next in its pipe becomes the one running. */
  private settle(slot: Slot, reply: EvaluateReply): void {
    const index = slot.jobs.findIndex((j) => j.id === reply.id);
    const job = slot.jobs[index];
    if (!job) return;
    slot.jobs.splice(index, 1);
    if (index === 0) {
      clearTimeout(slot.timer);
      slot.timer = undefined;
      this.startFirst(slot);
    }
    job.resolve(reply);
    // Not synchronously: the caller may be about to retire this slot.
    queueMicrotask(() => this.dispatch());
  }

  /** The evaluator is being replaced: its running job gets `reply`, the jobs behind it go back to the queue's front. */
  private abandon(slot: Slot, reply: (job: Job) => EvaluateReply): void {
    clearTimeout(slot.timer);
    const [running, ...behind] = slot.jobs.splice(0);
    // A rescued job is already queued or running elsewhere as its copy.
    const waiting = behind.filter((job) => !job.rescued);
    if (this.closed) for (const job of waiting) job.reject(new EngineClosedError());
    else this.queue.unshift(...waiting);
    if (running) running.resolve(reply(running));
    this.replace(slot);
    queueMicrotask(() => this.dispatch());
  }

  private onMessage(slot: Slot, message: EvaluatorMessage): void {
    if (slot.retired) return;
    slot.cpuMs = message.cpuMs;
    if (message.type === "ready") {
      slot.ready = true;
      slot.markStarted();
      this.startFailures = 0;
      this.dispatch();
      return;
    }
    if (message.type === "timed") {
      // Its version compiled, or its cold first run out of time and run once more: its limit starts now (D-379).
      if (slot.jobs[0]?.id === message.id) this.timeFirst(slot);
      return;
    }
    for (const reply of message.replies) this.settle(slot, reply);
  }

  /**
   * The running job outlived its time limit plus the grace. A runaway has been burning CPU all along: kill it. An evaluator
   * that got less than a tenth of that time as CPU, or less than the time limit itself, was starved by an overloaded
   * machine, not stuck: it gets more time (up to STARVED_DEADLINES deadlines), and if it is replaced after all, its job
   * is reported starved (overload), not as the profile's guardrail breach. The limit too (D-379): a version's first
   * evaluation also compiles it, and on a busy machine a cooperative one that had less than its limit as CPU may not
   * yet have run to see the limit pass. Where the evaluator's CPU cannot be read (not Linux), it is killed at the first
   * deadline.
   */
  private deadline(slot: Slot, job: Job, deadlineMs: number, timedFrom: number): void {
    // This thread may have been too busy to read a reply that is already waiting in the IPC pipe: the poll phase reads
    // it before setImmediate runs, so the evaluator is judged only after that (a second run's notice included).
    setImmediate(() => {
      if (slot.retired || slot.jobs[0] !== job || slot.timedFrom !== timedFrom) return;
      const elapsedMs = Math.round(performance.now() - timedFrom);
      const cpuMs = slot.worker.cpuMs();
      const enough = Math.max(deadlineMs / LIMITS.starvedCpuShare, job.request.timeoutMs);
      const starved = cpuMs !== undefined && cpuMs - slot.cpuMs < enough;
      if (starved && elapsedMs < deadlineMs * STARVED_DEADLINES) {
        slot.timer = setTimeout(() => this.deadline(slot, job, deadlineMs, timedFrom), this.options.deadlineGraceMs);
        return;
      }
      const { versionId } = job.request;
      this.options.log?.warn({ pool: this.options.name, versionId, elapsedMs, starved }, "worker killed");
      const message = starved
        ? `evaluation got no CPU for ${elapsedMs} ms; its worker was replaced`
        : `evaluation did not stop within ${deadlineMs} ms; its worker was killed`;
      this.abandon(slot, (j) =>
        starved
          ? { id: j.id, ok: false, kind: "starved", message, elapsedMs }
          : { id: j.id, ok: false, kind: "guardrail", limit: "deadline", message, elapsedMs },
      );
    });
  }

  private onExit(slot: Slot, exit: EvaluatorExit): void {
    if (slot.retired) return;
    const failure = { pool: this.options.name, code: exit.code, signal: exit.signal, stderr: exit.stderr.slice(-500) };
    if (!slot.ready) {
      const error = new EngineUnavailableError(`profile worker exited before it was ready: ${exit.stderr.slice(-500)}`);
      slot.markStarted(error);
      this.onStartFailure(error, failure);
      this.replace(slot);
      return;
    }
    const limit: GuardrailLimit = exit.outOfMemory ? "memory" : "crash";
    const message = exit.outOfMemory ? "evaluation exhausted its worker's memory" : "evaluation crashed its worker";
    const elapsedMs = Math.round(performance.now() - slot.startedAt);
    if (slot.jobs.length === 0 || !exit.outOfMemory) this.options.log?.warn(failure, "profile worker exited");
    this.abandon(slot, (j) => ({ id: j.id, ok: false, kind: "guardrail", limit, message, elapsedMs }));
  }

  private onStartFailure(error: Error, details: object): void {
    this.startFailures++;
    this.options.log?.error(details, "profile worker failed to start");
    if (this.slots.some((s) => s.ready && !s.retired)) return;
    for (const job of this.queue.splice(0)) job.reject(error);
  }

  private replace(slot: Slot): void {
    void this.retire(slot);
    if (this.closed) return;
    this.restartCount++;
    // An evaluator that cannot start would otherwise be respawned in a tight loop.
    const delay = this.startFailures === 0 ? 0 : Math.min(5_000, 100 * 2 ** this.startFailures);
    const respawn = () => {
      const index = this.slots.indexOf(slot);
      if (this.closed || index < 0) return;
      this.slots[index] = this.spawn();
    };
    if (delay === 0) respawn();
    else setTimeout(respawn, delay).unref();
  }

  private async retire(slot: Slot): Promise<void> {
    if (!slot.ready) slot.markStarted(new EngineUnavailableError("profile worker stopped before it was ready"));
    slot.retired = true;
    clearTimeout(slot.timer);
    await slot.worker.stop();
  }

  private spawn(): Slot {
    let markStarted: (error?: Error) => void = () => {};
    const started = new Promise<void>((resolve, reject) => {
      markStarted = (error) => (error ? reject(error) : resolve());
    });
    started.catch(() => {}); // reported through onStartFailure; ready() re-raises it for callers that wait
    const worker = new EvaluatorProcess({
      heapMb: this.options.heapMb,
      ...(this.options.nice ? { nice: this.options.nice } : {}),
      compiledCacheSize: this.options.compiledCacheSize,
      // Events arrive asynchronously, after `slot` below is assigned.
      onMessage: (message) => this.onMessage(slot, message),
      onExit: (exit) => this.onExit(slot, exit),
    });
    const slot: Slot = {
      worker,
      started,
      markStarted,
      ready: false,
      retired: false,
      jobs: [],
      startedAt: 0,
      timedFrom: 0,
      cpuMs: 0,
    };
    return slot;
  }
}
