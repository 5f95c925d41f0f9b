import type { GatewayContext } from "../context.js";
import { type OutageRetry, OutageRetryClosedError } from "../outage/index.js";
import type { SubmissionRow, SubmissionStore } from "../storage/submissions/index.js";
import { type AttemptOptions, SubmissionAttempt } from "./attempt.js";
import { Dispatcher } from "./dispatcher.js";
import type { ForwardingDriver } from "./driver.js";
import type { ForwardingLimits } from "./limits.js";
import { SettlementWaiters } from "./waiters.js";

/** Whether this process may run the embedded queue now: its claim on the database (D-256), which it may lose (D-336). */
export interface QueueOwnership {
  readonly held: boolean;
  onChange(listener: (held: boolean) => void): void;
}

export interface ForwarderOptions extends AttemptOptions {
  limits?: ForwardingLimits;
  /** Upstream calls in flight at once. */
  maxInFlight?: number;
  /** How often the database is swept for what is queued and due (D-330); default 5 s. */
  reconcileMs?: number;
  /** The embedded driver's claim on a shared database (PostgreSQL): nothing is sent while it is lost. */
  ownership?: QueueOwnership;
}

/** How long after its reservation a send may still leave (its claim may wait for the database meanwhile). */
const SEND_BY_MS = 2_000;

/**
 * The embedded forwarding driver: dispatches from the database what may be sent now, and sends it from this process.
 * Accepted submissions are committed by intake first; the forwarder holds only ids in memory and rebuilds them from
 * the database on start, so a crash loses nothing (a submission caught mid-send is sent again: leads merge and
 * appointments replay, §4.2). One process owns the queue.
 *
 * The database is swept every `reconcileMs`, and as soon as it is back after an outage or the queue's claim is taken
 * back (D-330): whatever is queued and due is admitted again, so no submission waits on a timer of this process that
 * an outage made it lose.
 */
export class Forwarder implements ForwardingDriver {
  readonly driver = "embedded";
  readonly #ctx: GatewayContext;
  readonly #store: SubmissionStore;
  readonly #attempt: SubmissionAttempt;
  readonly #dispatcher: Dispatcher;
  readonly #waiters = new SettlementWaiters();
  readonly #ownership: QueueOwnership | undefined;
  readonly #reconcileMs: number;
  readonly #sweeps: OutageRetry;
  readonly #closed = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  #sweepAgain = false;
  #forgetRecovery: (() => void) | undefined;

  constructor(ctx: GatewayContext, options: ForwarderOptions) {
    this.#ctx = ctx;
    this.#store = ctx.submissions;
    this.#ownership = options.ownership;
    this.#reconcileMs = options.reconcileMs ?? 5_000;
    this.#sweeps = ctx.outages.retry({ name: "forwarding reconciler", signal: this.#closed.signal });
    const attempt = new SubmissionAttempt(ctx, {
      ...options,
      onSettled: (row) => {
        this.#waiters.settled(row);
        options.onSettled?.(row);
      },
    });
    this.#attempt = attempt;
    const ownership = this.#ownership;
    this.#dispatcher = new Dispatcher(ctx, {
      limits: options.limits,
      maxInFlight: options.maxInFlight,
      // A send's claim may wait SEND_BY_MS for the database before the request leaves, then the call's timeout.
      sendBoundMs: SEND_BY_MS + attempt.timeoutMs,
      transport: {
        send: ({ ready, reservedAt }, answered) =>
          attempt.run(ready.submissionId, answered, reservedAt + SEND_BY_MS, ready.credentialId),
      },
      ...(ownership ? { mayDispatch: () => ownership.held } : {}),
    });
  }

  /** Recovers what a previous process left and starts dispatching. */
  async start(): Promise<void> {
    // The embedded queue has one owner: whatever was mid-send belongs to a process that is gone.
    await this.#sweeps.run(() => this.#store.releaseExpiredLeases(Number.POSITIVE_INFINITY, Date.now()));
    await this.#dispatcher.reconcile();
    this.#timer = setInterval(() => this.#sweepSoon(), this.#reconcileMs);
    this.#timer.unref();
    this.#forgetRecovery = this.#ctx.outages.onRecovered((store) => {
      if (store === "database") this.#sweepSoon();
    });
    this.#ownership?.onChange((held) => {
      if (held) {
        this.#ctx.log.info("forwarding: the embedded queue's claim on the database is held again");
        this.#sweepSoon();
      } else {
        this.#ctx.log.warn(
          "forwarding: the embedded queue's claim on the database was lost (its connection broke): nothing is sent until it is taken back",
        );
      }
    });
  }

  /** Intake tells the forwarder about a committed submission. Harmless to repeat (deduplicated by id). */
  notify(row: SubmissionRow): void {
    if (row.status === "queued") this.#dispatcher.notify(row);
  }

  /** A rotated credential resumes the submissions that waited on it. */
  async credentialRotated(credentialId: string): Promise<void> {
    await this.#store.resumeCredential(credentialId, Date.now());
    await this.#dispatcher.reconcile();
  }

  /** Resolves with the submission once it is forwarded or failed, or undefined after `timeoutMs` (sync answers). */
  async waitFor(submissionId: string, timeoutMs: number): Promise<SubmissionRow | undefined> {
    return this.#waiters.wait(submissionId, timeoutMs, () => this.#store.get(submissionId));
  }

  get backlog(): number {
    return this.#dispatcher.backlog;
  }

  /** Graceful stop: no new sends; in-flight calls get until the deadline; leases of the rest are released. */
  async close(deadlineMs = 5_000): Promise<void> {
    clearInterval(this.#timer);
    this.#forgetRecovery?.();
    this.#closed.abort();
    const unanswered = await this.#dispatcher.close(deadlineMs);
    this.#attempt.close();
    await this.#sweeping;
    await this.#store.releaseLeases(unanswered).catch((error: unknown) => {
      // The database is away: their leases run out, and the next start queues them again.
      this.#ctx.log.warn({ err: error, submissions: unanswered.length }, "forwarding: leases not released at close");
    });
  }

  /** A sweep now, or right after the one running. */
  #sweepSoon(): void {
    if (this.#closed.signal.aborted) return;
    if (this.#sweeping !== undefined) {
      this.#sweepAgain = true;
      return;
    }
    this.#sweeping = this.#sweep()
      .catch((error: unknown) => {
        if (!(error instanceof OutageRetryClosedError)) this.#ctx.log.error({ err: error }, "forwarding sweep failed");
      })
      .finally(() => {
        this.#sweeping = undefined;
        if (this.#sweepAgain) {
          this.#sweepAgain = false;
          this.#sweepSoon();
        }
      });
  }

  /**
   * The database as the source of truth: leases run out and not held by a send of this process are given back (a
   * claim of a process that died, or one whose answer was lost), keeping those that ran out during a recent outage of
   * the database (D-334); then everything queued is admitted (known ones are not twice).
   */
  async #sweep(): Promise<void> {
    if (this.#ownership && !this.#ownership.held) return;
    const now = Date.now();
    const cutoff = this.#ctx.outages.leaseCutoff(now);
    const sending = this.#dispatcher.inFlight;
    await this.#sweeps.run(() => this.#store.releaseExpiredLeases(cutoff, now, sending));
    await this.#dispatcher.reconcile(now);
  }
}
