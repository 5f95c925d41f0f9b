/** Sends are paced at this fraction of the nominal interval W/N. */
export const PACING = 0.9;

/**
 * One limiter node (§8): at most `limit` sends in any span of `windowMs` as the upstream counts them, and paced —
 * consecutive sends at least 0.9 × `windowMs / limit` apart — so a backlog drains evenly instead of bursting at the
 * start of each window.
 *
 * Exactness does not rest on guessing the network's delay: the upstream counts a request when it arrives, somewhere
 * between our send and its answer. So each of the last `limit` slots holds the time the *answer* came (an upper bound
 * of the arrival), and is held open while the request is in flight. A send is allowed once the slot `limit` sends
 * back closed a full window ago; then its arrival is at least a window after that earlier arrival, whatever the
 * jitter. The cost is one round trip per window.
 */
export class SlidingLog {
  readonly #ring: number[];
  #next = 0;
  /** When pacing allows the next send. */
  #pacedAt = Number.NEGATIVE_INFINITY;
  readonly spacingMs: number;
  /** Timer lateness absorbed by the cadence: a few milliseconds, never more than a tenth of the interval. */
  readonly #tolerance: number;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    /** Added to each window edge: clock granularity between two processes. */
    readonly marginMs = 1,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError("limit must be a positive integer");
    this.#ring = new Array<number>(limit).fill(Number.NEGATIVE_INFINITY);
    // Paced a little under W/N: the ring (a window after the answer N sends back) is what binds at full load, at a
    // cost of one round trip per window; pacing only keeps a backlog from bursting.
    this.spacingMs = (PACING * windowMs) / limit;
    this.#tolerance = Math.min(5, this.spacingMs / 10);
  }

  /** The earliest time a send may happen (+Infinity while the deciding slot is still in flight). */
  nextAllowedAt(): number {
    const oldest = this.#ring[this.#next] ?? Number.NEGATIVE_INFINITY;
    return Math.max(this.#pacedAt, oldest + this.windowMs + this.marginMs);
  }

  /** Records a send at `at`; returns its slot, to close with `complete` when the answer (or the failure) comes. */
  record(at: number): number {
    const slot = this.#next;
    this.#ring[slot] = Number.POSITIVE_INFINITY;
    this.#next = (this.#next + 1) % this.limit;
    // Keep the cadence when a timer fires a little late, so lateness does not accumulate into lost throughput;
    // after a pause, start a fresh cadence.
    this.#pacedAt = Math.max(this.#pacedAt + this.spacingMs, at + this.spacingMs - this.#tolerance);
    return slot;
  }

  /** The answer to the send in `slot` arrived at `at`: the request reached the upstream no later than that. */
  complete(slot: number, at: number): void {
    this.#ring[slot] = at;
  }

  /**
   * Takes over a send history kept elsewhere (another dispatcher's, mirrored in Redis): the answer times of the last
   * sends, an in-flight one by the latest time it can still arrive. Pacing starts afresh at `now`.
   */
  restore(answeredAt: readonly number[], now: number): void {
    const last = [...answeredAt].sort((a, b) => a - b).slice(-this.limit);
    this.#ring.fill(Number.NEGATIVE_INFINITY);
    for (const [i, at] of last.entries()) this.#ring[this.limit - last.length + i] = at;
    this.#next = 0;
    this.#pacedAt = now;
  }

  /** The answer times held (an in-flight send as +Infinity), for a mirror of the history. */
  times(): number[] {
    return this.#ring.filter((t) => t !== Number.NEGATIVE_INFINITY);
  }

  /** Sends counted within the window ending at `now` (in-flight ones included), for headroom metrics. */
  usedAt(now: number): number {
    return this.#ring.filter((t) => t > now - this.windowMs).length;
  }
}
