import type { Logger } from "../../log.js";
import type { EvaluationFailure } from "./classify.js";
import { EngineClosedError, EngineOverloadedError, EngineUnavailableError } from "./errors.js";
import type { EvaluateReply, EvaluateRequest, WorkerMessage } from "./protocol.js";
import type { GuardrailLimit } from "./types.js";
import { type WorkerExit, WorkerProcess } from "./worker-process.js";

export interface PoolOptions {
  name: string;
  size: number;
  /** Evaluations allowed to wait for a worker; one more is refused with EngineOverloadedError. */
  maxQueue: number;
  /** A worker whose evaluation outlives its JSONata time limit by this much is killed and replaced. */
  deadlineGraceMs: number;
  heapMb: number;
  compiledCacheSize: number;
  log?: Logger;
}

export type PoolRequest = Omit<EvaluateRequest, "id">;

interface Job {
  id: number;
  request: PoolRequest;
  resolve(reply: EvaluateReply): void;
  reject(error: Error): void;
}

interface Slot {
  worker: WorkerProcess;
  /** Settles when the worker has loaded (rejects if it cannot start). */
  started: Promise<void>;
  markStarted(error?: Error): void;
  ready: boolean;
  retired: boolean;
  job?: Job | undefined;
  startedAt: number;
  timer?: NodeJS.Timeout | undefined;
}

/**
 * A fixed set of evaluator processes, so a runaway expression occupies a worker, never the event loop that serves every
 * tenant. One evaluation per worker at a time; the rest wait in a bounded FIFO queue. JSONata stops most runaways
 * itself (time, stack, sequence); one that does not cooperate (a native call that never returns to the evaluator, a
 * heap blown in one allocation) is killed at the hard deadline, or dies, and a fresh worker takes its place.
 */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
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
      this.dispatch();
    });
  }

  /** Resolves when every worker has loaded; rejects when one cannot start. Optional: `run` waits anyway. */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.started));
  }

  stats(): { workers: number; ready: number; busy: number; queued: number; restarts: number } {
    const live = this.slots.filter((s) => !s.retired);
    return {
      workers: live.length,
      ready: live.filter((s) => s.ready).length,
      busy: live.filter((s) => s.job).length,
      queued: this.queue.length,
      restarts: this.restartCount,
    };
  }

  /** Refuses new work, fails what is still queued, lets running evaluations finish (each is deadline-bounded). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new EngineClosedError());
    while (this.slots.some((s) => s.job && !s.retired)) await new Promise((r) => setTimeout(r, 5));
    await Promise.all(this.slots.map((slot) => this.retire(slot)));
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.retired || !slot.ready || slot.job) continue;
      const job = this.queue.shift();
      if (!job) return;
      this.start(slot, job);
    }
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    slot.startedAt = performance.now();
    const deadlineMs = job.request.timeoutMs + this.options.deadlineGraceMs;
    slot.timer = setTimeout(() => this.deadline(slot, job, deadlineMs), deadlineMs);
    try {
      slot.worker.send({ id: job.id, ...job.request });
    } catch (error) {
      this.finish(slot, { id: job.id, ...unsendable(error), elapsedMs: 0 });
    }
  }

  private finish(slot: Slot, reply: EvaluateReply): void {
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
    job.resolve(reply);
    // Not synchronously: a deadline or a crash retires this slot right after finishing its job.
    queueMicrotask(() => this.dispatch());
  }

  private onMessage(slot: Slot, message: WorkerMessage): void {
    if (slot.retired) return;
    if (message.type === "ready") {
      slot.ready = true;
      slot.markStarted();
      this.startFailures = 0;
      this.dispatch();
      return;
    }
    const { type: _type, ...reply } = message;
    this.finish(slot, reply);
  }

  private deadline(slot: Slot, job: Job, deadlineMs: number): void {
    // This thread may have been too busy to read a reply that is already waiting in the IPC pipe: the poll phase reads
    // it before setImmediate runs, so the worker is judged only after that.
    setImmediate(() => {
      if (slot.job !== job) return;
      const elapsedMs = Math.round(performance.now() - slot.startedAt);
      const message = `evaluation did not stop within ${deadlineMs} ms; its worker was killed`;
      this.finish(slot, { id: job.id, ok: false, kind: "guardrail", limit: "deadline", message, elapsedMs });
      this.options.log?.warn({ pool: this.options.name, versionId: job.request.versionId, elapsedMs }, "worker killed");
      this.replace(slot);
    });
  }

  private onExit(slot: Slot, exit: WorkerExit): void {
    if (slot.retired) return;
    const job = slot.job;
    const outOfMemory = exit.outOfMemory;
    if (job) {
      const limit: GuardrailLimit = outOfMemory ? "memory" : "crash";
      const message = outOfMemory ? "evaluation exhausted its worker's memory" : "evaluation crashed its worker";
      const elapsedMs = Math.round(performance.now() - slot.startedAt);
      this.finish(slot, { id: job.id, ok: false, kind: "guardrail", limit, message, elapsedMs });
    }
    const failure = { pool: this.options.name, code: exit.code, signal: exit.signal, stderr: exit.stderr.slice(-500) };
    if (!slot.ready) {
      const error = new EngineUnavailableError(`profile worker exited before it was ready: ${exit.stderr.slice(-500)}`);
      slot.markStarted(error);
      this.onStartFailure(error, failure);
    } else if (!job || !outOfMemory) {
      this.options.log?.warn(failure, "profile worker exited");
    }
    this.replace(slot);
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
    // A worker that cannot start would otherwise be respawned in a tight loop.
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
    const worker = new WorkerProcess({
      heapMb: this.options.heapMb,
      compiledCacheSize: this.options.compiledCacheSize,
      // Events arrive asynchronously, after `slot` below is assigned.
      onMessage: (message) => this.onMessage(slot, message),
      onExit: (exit) => this.onExit(slot, exit),
    });
    const slot: Slot = { worker, started, markStarted, ready: false, retired: false, startedAt: 0 };
    return slot;
  }
}

/**
 * The request could not be serialised for the worker. Intake passes parsed JSON, which always serialises unless it is
 * nested so deeply that JSON.stringify runs out of stack: that is the deep-nesting attack, refused like any other
 * guardrail breach. Anything else is a caller's bug, reported as a mapping error.
 */
function unsendable(error: unknown): EvaluationFailure {
  if (error instanceof RangeError) {
    return { ok: false, kind: "guardrail", limit: "stack", message: "payload is nested too deeply to evaluate" };
  }
  const reason = error instanceof Error ? error.message : String(error);
  return { ok: false, kind: "mapping", message: `payload cannot be evaluated: ${reason}` };
}
