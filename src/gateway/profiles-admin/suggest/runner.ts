import { Worker } from "node:worker_threads";
import type { Logger } from "../../../log.js";
import { SuggestionBusyError, SuggestionClosedError, SuggestionError, SuggestionTimeoutError } from "./errors.js";
import { SUGGEST_LIMITS, type SuggestLimits } from "./limits.js";
import type { SuggestReply, SuggestRequest } from "./protocol.js";
import type { SuggestInput, Suggestion } from "./types.js";
import { suggestWorkerBundle } from "./worker-bundle.js";

/** How long a new thread may take to load its code (bundling is done by then; loading takes well under a second). */
const STARTUP_MS = 10_000;

interface Job {
  request: SuggestRequest;
  resolve(suggestion: Suggestion): void;
  reject(error: Error): void;
}

export interface SuggesterOptions {
  limits?: Partial<SuggestLimits>;
  log?: Logger;
  /** The thread's module; the bundled suggester by default (tests give one that hangs). */
  entry?: string;
}

type Work = { text: string } | { input: SuggestInput };

/**
 * Makes suggestions on a thread of its own, never on the one that serves intake (docs/decisions.md, D-314): one at a
 * time per process, at most `maxQueue` waiting (past that, SuggestionBusyError), each within `timeoutMs` (past it the
 * thread is stopped — whatever it was doing ends — and the next suggestion starts a new one). The thread starts on
 * the first suggestion (the clock starts once it has loaded its code) and is not kept alive by an idle process.
 */
export class ProfileSuggester {
  readonly #limits: SuggestLimits;
  readonly #log: Logger | undefined;
  readonly #entry: string | undefined;
  readonly #queue: Job[] = [];
  #worker: { thread: Worker; ready: boolean } | undefined;
  #running: { job: Job; timer: NodeJS.Timeout | undefined } | undefined;
  #nextId = 1;
  #closed = false;

  constructor(options: SuggesterOptions = {}) {
    this.#limits = { ...SUGGEST_LIMITS, ...options.limits };
    this.#log = options.log;
    this.#entry = options.entry;
  }

  /** A suggestion from a request body's text (`{kind, payloads}`, already validated by the route). */
  suggestFromText(text: string): Promise<Suggestion> {
    return this.#enqueue({ text });
  }

  suggest(input: SuggestInput): Promise<Suggestion> {
    return this.#enqueue({ input });
  }

  /** Suggestions waiting and running, for tests and stats. */
  get pending(): number {
    return this.#queue.length + (this.#running ? 1 : 0);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new SuggestionClosedError("the suggester is closed"));
    if (this.#running) {
      clearTimeout(this.#running.timer);
      this.#running.job.reject(new SuggestionClosedError("the suggester is closed"));
      this.#running = undefined;
    }
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.thread.terminate();
  }

  #enqueue(work: Work): Promise<Suggestion> {
    if (this.#closed) return Promise.reject(new SuggestionClosedError("the suggester is closed"));
    if (this.#running && this.#queue.length >= this.#limits.maxQueue) {
      return Promise.reject(
        new SuggestionBusyError(`${this.#queue.length} suggestions are waiting already: try again shortly`),
      );
    }
    return new Promise<Suggestion>((resolve, reject) => {
      const id = this.#nextId++;
      const request: SuggestRequest = "text" in work ? { id, text: work.text } : { id, input: work.input };
      this.#queue.push({ request, resolve, reject });
      this.#next();
    });
  }

  #next(): void {
    if (this.#running || this.#closed) return;
    const job = this.#queue.shift();
    if (!job) return;
    const worker = this.#thread();
    this.#running = { job, timer: undefined };
    // A thread still loading its code gets the message when it listens; the clock starts when it is ready, and
    // until then a generous one stands in, so a thread that never gets ready does not hold its suggestion for ever.
    this.#startClock(job, worker.ready ? this.#limits.timeoutMs : this.#limits.timeoutMs + STARTUP_MS);
    worker.thread.postMessage(job.request);
  }

  #startClock(job: Job, ms: number): void {
    const running = this.#running;
    if (running?.job !== job) return;
    clearTimeout(running.timer);
    running.timer = setTimeout(() => this.#timedOut(job), ms);
  }

  #thread(): { thread: Worker; ready: boolean } {
    if (this.#worker) return this.#worker;
    const thread = new Worker(this.#entry ?? suggestWorkerBundle(), {
      // The thread needs nothing of the environment: it cannot leak a secret it never had.
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: this.#limits.heapMb },
    });
    const worker = { thread, ready: false };
    thread.unref();
    thread.on("message", (reply: SuggestReply) => {
      if (!("ready" in reply)) return this.#answered(reply);
      worker.ready = true;
      if (this.#running) this.#startClock(this.#running.job, this.#limits.timeoutMs);
    });
    thread.on("error", (error) => this.#died(worker, error));
    thread.on("exit", () => this.#died(worker, new Error("the suggester's thread stopped")));
    this.#worker = worker;
    return worker;
  }

  #answered(reply: Exclude<SuggestReply, { ready: true }>): void {
    const running = this.#running;
    if (!running || running.job.request.id !== reply.id) return;
    clearTimeout(running.timer);
    this.#running = undefined;
    if (reply.ok) running.job.resolve(reply.suggestion);
    else running.job.reject(new SuggestionError(reply.message));
    this.#next();
  }

  #timedOut(job: Job): void {
    if (this.#running?.job !== job) return;
    this.#running = undefined;
    const worker = this.#worker;
    this.#worker = undefined;
    void worker?.thread.terminate();
    job.reject(new SuggestionTimeoutError(`the payloads took longer than ${this.#limits.timeoutMs} ms to read`));
    this.#next();
  }

  /** The thread ended on its own (out of memory, a crash): its suggestion fails, the next starts a new thread. */
  #died(worker: { thread: Worker }, error: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    const running = this.#running;
    if (running) {
      clearTimeout(running.timer);
      this.#running = undefined;
      running.job.reject(new SuggestionError(`the suggester's thread failed: ${error.message}`));
    }
    this.#log?.warn({ err: error.message }, "profile suggester thread ended");
    this.#next();
  }
}
