import type { Logger } from "../../log.js";
import { type OutageCause, type OutageReason, outageCause } from "./store-outage.js";

export interface OutageRetryOptions {
  /** The loop, as its log lines name it ("forwarding dispatcher", "webhook dispatcher"). */
  name: string;
  log: Logger;
  /** The first wait after a failed try, and the floor of every wait (ms). */
  minDelayMs?: number;
  /** The longest wait between two tries (ms). */
  maxDelayMs?: number;
  /** Aborted when the loop closes: nothing waits any more (runs waiting reject with OutageRetryClosedError). */
  signal?: AbortSignal;
  random?: () => number;
  /** Told when an outage begins (its state) and when it ends (undefined): readiness and metrics follow it. */
  onChange?: (outage: OutageState | undefined) => void;
}

export const DEFAULT_MIN_DELAY_MS = 100;
export const DEFAULT_MAX_DELAY_MS = 5_000;

/** The loop closed while its step waited for the store: the work is still in the database, for the next start. */
export class OutageRetryClosedError extends Error {
  override name = "OutageRetryClosedError";
  readonly code = "retry_closed";
}

/** An outage as a loop saw it: since when, why (the first error), how many tries failed so far. */
export interface OutageState {
  since: number;
  reason: OutageReason;
  failedTries: number;
}

interface Outage extends OutageState {
  /** Which outage (a try started before it does not end it). */
  epoch: number;
  /** Waits so far: the next one's ceiling doubles with each. */
  waits: number;
  /** The last outage error: the cause of the error a closing loop's waiting steps get. */
  lastError: unknown;
}

interface Waiter {
  resolve(probe: boolean): void;
  reject(error: unknown): void;
}

/**
 * Runs the steps of one loop that touches the store (a read, a commit, a Redis call) through outages of it: a step
 * that fails because the database or Redis is unreachable or cannot write (isStoreOutage) is tried again until it
 * succeeds, never dropped; any other error goes to the caller, whose handler decides.
 *
 * While an outage lasts, the loop's steps wait together and one of them at a time tries (the probe), after a backoff
 * that doubles from `minDelayMs` up to `maxDelayMs` with jitter (each wait is random between half its ceiling and the
 * ceiling, never under `minDelayMs`): however many rows wait, the store sees at most one try per wait. The first try
 * that succeeds ends the outage and lets every waiting step go. The outage is logged once when it begins (with its
 * first error, described without its query or parameters) and once when it ends (with the failed tries and how long it
 * lasted), never once per row or per try.
 */
export class OutageRetry {
  readonly #name: string;
  readonly #log: Logger;
  readonly #minDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #random: () => number;
  readonly #signal: AbortSignal | undefined;
  readonly #onChange: ((outage: OutageState | undefined) => void) | undefined;
  #outage: Outage | undefined;
  #epoch = 0;
  readonly #waiting: Waiter[] = [];
  #probing = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: OutageRetryOptions) {
    this.#name = options.name;
    this.#log = options.log;
    this.#minDelayMs = options.minDelayMs ?? DEFAULT_MIN_DELAY_MS;
    this.#maxDelayMs = Math.max(this.#minDelayMs, options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS);
    this.#random = options.random ?? Math.random;
    this.#signal = options.signal;
    this.#onChange = options.onChange;
    this.#signal?.addEventListener("abort", () => this.#close(), { once: true });
  }

  /** The outage under way, if any (readiness, metrics). */
  get outage(): OutageState | undefined {
    const outage = this.#outage;
    return outage && { since: outage.since, reason: outage.reason, failedTries: outage.failedTries };
  }

  /** Runs `step` until it succeeds or fails with an error that is not an outage (rethrown). */
  async run<T>(step: () => Promise<T>): Promise<T> {
    for (;;) {
      const probe = await this.#turn();
      const epoch = this.#epoch;
      try {
        const result = await step();
        this.#succeeded(epoch);
        return result;
      } catch (error) {
        const cause = outageCause(error);
        if (!cause) {
          if (probe) this.#nextProbe();
          throw error;
        }
        this.#failed(cause, error, probe);
        if (this.#signal?.aborted) throw closed(error);
      }
    }
  }

  /**
   * The store answers again (another check of this process, a ping, found it so): the next waiting step tries now
   * rather than at the end of its wait. With no step left waiting (the last one failed otherwise), that answer ends
   * the outage: nothing else would, and readiness and the dispatchers' fences read it. Nothing happens outside an
   * outage or while a try is under way.
   */
  wake(): void {
    const outage = this.#outage;
    if (!outage || this.#probing || this.#signal?.aborted) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#waiting.length === 0) this.#succeeded(outage.epoch);
    else this.#release();
  }

  /** Resolves when this step may try: at once outside an outage; else as the probe, or when the outage is over. */
  #turn(): Promise<boolean> {
    if (this.#signal?.aborted && this.#outage) return Promise.reject(closed(this.#outage.lastError));
    if (!this.#outage) return Promise.resolve(false);
    // No try under way and no wait running (the last probe failed otherwise, with nobody waiting): this one probes.
    if (!this.#probing && this.#timer === undefined) {
      this.#probing = true;
      return Promise.resolve(true);
    }
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
  }

  #succeeded(epoch: number): void {
    const outage = this.#outage;
    // A try started before the outage began proves nothing about the store now.
    if (!outage || epoch !== outage.epoch) return;
    this.#outage = undefined;
    this.#probing = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#log.info(
      { loop: this.#name, failedTries: outage.failedTries, outageMs: Date.now() - outage.since },
      `${this.#name}: store available again`,
    );
    this.#onChange?.(undefined);
    for (const waiter of this.#waiting.splice(0)) waiter.resolve(false);
  }

  #failed(cause: OutageCause, error: unknown, probe: boolean): void {
    const current = this.#outage;
    if (current) {
      current.failedTries++;
      current.lastError = error;
      if (probe) {
        this.#probing = false;
        this.#schedule(current);
      }
      return;
    }
    this.#epoch++;
    const outage: Outage = {
      epoch: this.#epoch,
      since: Date.now(),
      reason: cause.reason,
      failedTries: 1,
      waits: 0,
      lastError: error,
    };
    this.#outage = outage;
    this.#log.warn(
      { loop: this.#name, reason: cause.reason, code: cause.code, error: cause.message },
      `${this.#name}: store unavailable, retrying until it is back`,
    );
    this.#schedule(outage);
    this.#onChange?.(this.outage);
  }

  /** The probe failed for another reason: the store may well be back, the next waiting step tries at once. */
  #nextProbe(): void {
    this.#probing = false;
    if (this.#outage) this.#release();
  }

  #schedule(outage: Outage): void {
    if (this.#signal?.aborted) return;
    outage.waits++;
    const ceiling = Math.min(this.#maxDelayMs, this.#minDelayMs * 2 ** (outage.waits - 1));
    const delay = Math.max(this.#minDelayMs, ceiling * (0.5 + 0.5 * this.#random()));
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#release();
    }, delay);
    this.#timer.unref();
  }

  /** The oldest waiting step becomes the probe. */
  #release(): void {
    if (this.#probing) return;
    const next = this.#waiting.shift();
    if (!next) return;
    this.#probing = true;
    next.resolve(true);
  }

  #close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const cause = this.#outage?.lastError;
    for (const waiter of this.#waiting.splice(0)) waiter.reject(closed(cause));
  }
}

function closed(cause: unknown): OutageRetryClosedError {
  return new OutageRetryClosedError("the loop closed while the store was unavailable", { cause });
}
