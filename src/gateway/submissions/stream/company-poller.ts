import type { GatewayContext } from "../../context.js";
import { type OutageRetry, OutageRetryClosedError } from "../../outage/index.js";
import type { ChangeCursor, SubmissionRow } from "../../storage/submissions/index.js";
import type { StreamLimits } from "./limits.js";

/** One open stream as its company's poller sees it. */
export interface StreamSubscriber {
  /** Immutable attributes a stream may narrow to (a row never changes its key or kind). */
  filter: { keyId?: string | undefined; kind?: "lead" | "appointment" | undefined };
  deliver(row: SubmissionRow): void;
}

const iso = (ms: number) => new Date(ms).toISOString();
const after = (a: ChangeCursor, b: ChangeCursor) =>
  a.updatedAt > b.updatedAt || (a.updatedAt === b.updatedAt && a.id > b.id);

/**
 * The rows of one company changed since a cursor (updated_at, id), read from the database every `pollMs` while the
 * company has streams in this process, and handed to each of them (D-235). It reads the store, not an event of this
 * process, so what any process wrote is seen. Each poll reads again `lookbackMs` behind its cursor, for a row stamped
 * a little before it was committed or by a clock a little behind; a change already sent is recognised and skipped.
 */
export class CompanyPoller {
  readonly #subscribers = new Set<StreamSubscriber>();
  /** Per row read in the look-back window, the state last sent: a change is sent once. */
  readonly #sent = new Map<string, { at: string; state: string }>();
  #cursor: ChangeCursor;
  /** A burst larger than one poll's reads is caught up from the cursor itself, without the look-back. */
  #catchingUp = false;
  #timer: NodeJS.Timeout | undefined;
  #polling = false;

  readonly #ctx: GatewayContext;
  readonly #limits: StreamLimits;
  readonly #outage: OutageRetry | undefined;
  readonly companyId: string;

  /**
   * `outage`: the hub's, shared by every company's poller — through an outage of the database a poll waits (one try
   * at a time for all of them, logged once: D-330) and the streams stay open; they catch up from their cursors after.
   */
  constructor(ctx: GatewayContext, companyId: string, limits: StreamLimits, outage?: OutageRetry) {
    this.#ctx = ctx;
    this.companyId = companyId;
    this.#limits = limits;
    this.#outage = outage;
    this.#cursor = { updatedAt: iso(Date.now()), id: "" };
  }

  get size(): number {
    return this.#subscribers.size;
  }

  add(subscriber: StreamSubscriber): void {
    this.#subscribers.add(subscriber);
    if (!this.#timer) {
      this.#timer = setInterval(() => void this.poll(), this.#limits.pollMs);
      this.#timer.unref();
    }
  }

  /** True when this was the last stream (the poller stops; the hub forgets it). */
  remove(subscriber: StreamSubscriber): boolean {
    this.#subscribers.delete(subscriber);
    if (this.#subscribers.size > 0) return false;
    clearInterval(this.#timer);
    this.#timer = undefined;
    return true;
  }

  /** One poll: every row changed since the cursor (minus the look-back), in pages. */
  async poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const { batch, pagesPerPoll, lookbackMs } = this.#limits;
      let from: ChangeCursor = this.#catchingUp
        ? this.#cursor
        : { updatedAt: iso(Date.parse(this.#cursor.updatedAt) - lookbackMs), id: "" };
      for (let page = 1; ; page++) {
        // Awaited: the storage layer's reads may answer with promises.
        const read = () => this.#ctx.submissions.changedSince(this.companyId, from, batch);
        const rows = await (this.#outage ? this.#outage.run(read) : read());
        for (const row of rows) this.#consider(row);
        const last = rows.at(-1);
        if (last) from = { updatedAt: last.updatedAt, id: last.id };
        if (after(from, this.#cursor)) this.#cursor = from;
        this.#catchingUp = rows.length === batch && page >= pagesPerPoll;
        if (rows.length < batch || this.#catchingUp || this.#subscribers.size === 0) break;
      }
      this.#forgetBefore(iso(Date.parse(this.#cursor.updatedAt) - lookbackMs));
    } catch (error) {
      if (!(error instanceof OutageRetryClosedError)) {
        this.#ctx.log.error({ err: error, companyId: this.companyId }, "submission stream poll failed");
      }
    } finally {
      this.#polling = false;
    }
  }

  #consider(row: SubmissionRow): void {
    const state = `${row.updatedAt}|${row.status}|${row.attempts}`;
    if (this.#sent.get(row.id)?.state === state) return;
    this.#sent.set(row.id, { at: row.updatedAt, state });
    for (const subscriber of this.#subscribers) {
      const { keyId, kind } = subscriber.filter;
      if ((keyId && row.vendorKeyId !== keyId) || (kind && row.kind !== kind)) continue;
      subscriber.deliver(row);
    }
  }

  /** Rows older than the look-back window are never read again: their sent state is no longer needed. */
  #forgetBefore(cutoff: string): void {
    for (const [id, sent] of this.#sent) if (sent.at < cutoff) this.#sent.delete(id);
  }
}
