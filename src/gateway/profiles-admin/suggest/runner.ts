import { Worker } from "node:worker_threads";
import type { Logger } from "../../../log.js";
import { SuggestionBusyError, SuggestionClosedError, SuggestionError, SuggestionTimeoutError } from "./errors.js";
import { SUGGEST_LIMITS, type SuggestLimits } from "./limits.js";
import type { SuggestReply, SuggestRequest } from "./protocol.js";
import type { SuggestInput, Suggestion } from "./types.js";
import { suggestWorkerBundle } from "./worker-bundle.js";

interface Job {
  request: SuggestRequest;
  resolve(suggestion: Suggestion): void;
  reject(error: Error): void;
}

type Work = { text: string } | { input: SuggestInput };

/**
 * Makes suggestions on a thread of its own, never on the one that serves intake (docs/decisions.md, D-314): one at a
 * time per process, at most `maxQueue` waiting (past that, SuggestionBusyError), each within `timeoutMs` (past it the
 * thread is stopped — whatever it was doing ends — and the next suggestion starts a new one). The thread starts on
 * the first suggestion and is not kept alive by an idle process.
 */
export class ProfileSuggester {
  readonly #limits: SuggestLimits;
  readonly #queue: Job[] = [];
  #worker: Worker | undefined;
  #running: { job: Job; timer: NodeJS.Timeout } | undefined;
  #nextId = 1;
  #closed = false;

  constructor(
    limits: Partial<SuggestLimits> = {},
    private readonly log?: Logger,
  ) {
    this.#limits = { ...SUGGEST_LIMITS, ...limits };
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
    await worker?.terminate();
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
    const timer = setTimeout(() => this.#timedOut(job), this.#limits.timeoutMs);
    this.#running = { job, timer };
    worker.postMessage(job.request);
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(suggestWorkerBundle(), {
      // The thread needs nothing of the environment: it cannot leak a secret it never had.
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: this.#limits.heapMb },
    });
    worker.unref();
    worker.on("message", (reply: SuggestReply) => this.#answered(reply));
    worker.on("error", (error) => this.#died(worker, error));
    worker.on("exit", () => this.#died(worker, new Error("the suggester's thread stopped")));
    this.#worker = worker;
    return worker;
  }

  #answered(reply: SuggestReply): void {
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
    void worker?.terminate();
    job.reject(new SuggestionTimeoutError(`the payloads took longer than ${this.#limits.timeoutMs} ms to read`));
    this.#next();
  }

  /** The thread ended on its own (out of memory, a crash): its suggestion fails, the next starts a new thread. */
  #died(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    const running = this.#running;
    if (running) {
      clearTimeout(running.timer);
      this.#running = undefined;
      running.job.reject(new SuggestionError(`the suggester's thread failed: ${error.message}`));
    }
    this.log?.warn({ err: error.message }, "profile suggester thread ended");
    this.#next();
  }
}
