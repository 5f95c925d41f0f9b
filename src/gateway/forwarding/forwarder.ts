import type { GatewayContext } from "../context.js";
import type { SubmissionRow, SubmissionStore } from "../storage/submissions/index.js";
import { type AttemptOptions, SubmissionAttempt } from "./attempt.js";
import { Dispatcher } from "./dispatcher.js";
import type { ForwardingDriver } from "./driver.js";
import type { ForwardingLimits } from "./limits.js";
import { SettlementWaiters } from "./waiters.js";

export interface ForwarderOptions extends AttemptOptions {
  limits?: ForwardingLimits;
  /** Upstream calls in flight at once. */
  maxInFlight?: number;
}

/**
 * The embedded forwarding driver: dispatches from the database what may be sent now, and sends it from this process.
 * Accepted submissions are committed by intake first; the forwarder holds only ids in memory and rebuilds them from
 * the database on start, so a crash loses nothing (a submission caught mid-send is sent again: leads merge and
 * appointments replay, §4.2). One process owns the queue.
 */
export class Forwarder implements ForwardingDriver {
  readonly driver = "embedded";
  readonly #store: SubmissionStore;
  readonly #dispatcher: Dispatcher;
  readonly #waiters = new SettlementWaiters();

  constructor(ctx: GatewayContext, options: ForwarderOptions) {
    this.#store = ctx.submissions;
    const attempt = new SubmissionAttempt(ctx, {
      ...options,
      onSettled: (row) => {
        this.#waiters.settled(row);
        options.onSettled?.(row);
      },
    });
    this.#dispatcher = new Dispatcher(ctx, {
      limits: options.limits,
      maxInFlight: options.maxInFlight,
      sendBoundMs: attempt.timeoutMs,
      transport: {
        send: ({ ready }, answered) => attempt.run(ready.submissionId, answered),
      },
    });
  }

  /** Recovers what a previous process left and starts dispatching. */
  async start(): Promise<void> {
    // The embedded queue has one owner: whatever was mid-send belongs to a process that is gone.
    await this.#store.releaseExpiredLeases(Number.POSITIVE_INFINITY, Date.now());
    await this.#dispatcher.reconcile();
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
    await this.#store.releaseLeases(await this.#dispatcher.close(deadlineMs));
  }
}
