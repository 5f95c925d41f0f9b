import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { Logger } from "../../log.js";
import { EngineClosedError, EngineOverloadedError, EngineUnavailableError } from "./errors.js";
import type { EvaluateReply, EvaluateRequest, WorkerInit, WorkerMessage } from "./protocol.js";
import { workerEntry } from "./worker-entry.js";

export interface PoolOptions {
  name: string;
  size: number;
  /** Evaluations allowed to wait for a worker; one more is refused with EngineOverloadedError. */
  maxQueue: number;
  /** A worker whose evaluation outlives its JSONata time limit by this much is terminated and replaced. */
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
  worker: Worker;
  /** Settles when the worker has loaded (rejects if it cannot start). */
  started: Promise<void>;
  markStarted(error?: Error): void;
  port: MessagePort;
  ready: boolean;
  retired: boolean;
  job?: Job | undefined;
  startedAt: number;
  timer?: NodeJS.Timeout | undefined;
}

/**
 * A fixed set of worker threads running profile evaluations, so a runaway expression blocks a worker, never the event
 * loop that serves every tenant. One evaluation per worker at a time; the rest wait in a bounded FIFO queue. JSONata
 * stops most runaways itself (time, stack, sequence); for one that does not cooperate (a native call that never
 * returns to the evaluator) the hard deadline terminates the worker and a fresh one takes its place.
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
      slot.port.postMessage({ id: job.id, ...job.request } satisfies EvaluateRequest);
    } catch (error) {
      // DataCloneError: the payload was not plain data (the intake passes parsed JSON, so this is a caller's bug).
      this.finish(slot, {
        id: job.id,
        ok: false,
        kind: "mapping",
        message: `payload cannot be evaluated: ${error instanceof Error ? error.message : String(error)}`,
        elapsedMs: 0,
      });
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
    // This thread may have been too busy to read a reply that is already waiting: take it before judging the worker.
    for (let m = receiveMessageOnPort(slot.port); m; m = receiveMessageOnPort(slot.port)) {
      this.onMessage(slot, m.message as WorkerMessage);
    }
    if (slot.job !== job) return;
    const elapsedMs = Math.round(performance.now() - slot.startedAt);
    this.finish(slot, {
      id: job.id,
      ok: false,
      kind: "guardrail",
      limit: "deadline",
      message: `evaluation did not stop within ${deadlineMs} ms; its worker was terminated`,
      elapsedMs,
    });
    this.options.log?.warn({ pool: this.options.name, versionId: job.request.versionId, elapsedMs }, "worker killed");
    this.replace(slot);
  }

  private onFailure(slot: Slot, error: Error): void {
    if (slot.retired) return;
    const job = slot.job;
    if (job) {
      const outOfMemory = "code" in error && error.code === "ERR_WORKER_OUT_OF_MEMORY";
      this.finish(slot, {
        id: job.id,
        ok: false,
        kind: "guardrail",
        limit: outOfMemory ? "memory" : "crash",
        message: outOfMemory ? "evaluation exceeded the worker's memory limit" : "evaluation crashed its worker",
        elapsedMs: Math.round(performance.now() - slot.startedAt),
      });
    }
    if (!slot.ready) {
      slot.markStarted(error);
      this.onStartFailure(error);
    } else this.options.log?.warn({ pool: this.options.name, err: error }, "worker failed");
    this.replace(slot);
  }

  private onStartFailure(error: Error): void {
    this.startFailures++;
    this.options.log?.error({ pool: this.options.name, err: error }, "profile worker failed to start");
    if (this.slots.some((s) => s.ready && !s.retired)) return;
    const unavailable = new EngineUnavailableError(`profile workers failed to start: ${error.message}`);
    for (const job of this.queue.splice(0)) job.reject(unavailable);
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
    slot.port.close();
    await slot.worker.terminate().catch(() => undefined);
  }

  private spawn(): Slot {
    const { port1, port2 } = new MessageChannel();
    const entry = workerEntry();
    const init: WorkerInit = { port: port2, compiledCacheSize: this.options.compiledCacheSize };
    const worker = new Worker(entry.script, {
      ...entry.options,
      name: `${this.options.name}-profile-worker`,
      workerData: init,
      transferList: [port2],
      // Profiles never need the environment; a worker without it cannot leak a secret from it.
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
    });
    let markStarted: (error?: Error) => void = () => {};
    const started = new Promise<void>((resolve, reject) => {
      markStarted = (error) => (error ? reject(error) : resolve());
    });
    started.catch(() => {}); // reported through onStartFailure; ready() re-raises it for callers that wait
    const slot: Slot = { worker, started, markStarted, port: port1, ready: false, retired: false, startedAt: 0 };
    port1.on("message", (message: WorkerMessage) => this.onMessage(slot, message));
    worker.on("error", (error) => this.onFailure(slot, error));
    worker.on("exit", (code) => this.onFailure(slot, new Error(`worker exited with code ${code}`)));
    return slot;
  }
}
