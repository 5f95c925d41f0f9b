/**
 * One limiter node (§8): at most `limit` sends in any span of `windowMs`, kept exactly with a ring of the last
 * `limit` send times, and paced — consecutive sends at least `windowMs / limit` apart — so a backlog drains evenly
 * instead of bursting at the start of each window.
 *
 * `marginMs` covers the difference between when the gateway sends and when the upstream counts the arrival: two
 * sends a window apart may arrive slightly less than a window apart if the first was slower on the wire.
 */
export class SlidingLog {
  readonly #ring: number[];
  #next = 0;
  #count = 0;
  #last = Number.NEGATIVE_INFINITY;
  readonly spacingMs: number;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    readonly marginMs = 0,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError("limit must be a positive integer");
    this.#ring = new Array<number>(limit).fill(Number.NEGATIVE_INFINITY);
    this.spacingMs = windowMs / limit;
  }

  /** The earliest time a send may happen. */
  nextAllowedAt(): number {
    const paced = this.#last + this.spacingMs;
    if (this.#count < this.limit) return paced;
    // The oldest of the last `limit` sends must have left the window.
    const oldest = this.#ring[this.#next] ?? Number.NEGATIVE_INFINITY;
    return Math.max(paced, oldest + this.windowMs + this.marginMs);
  }

  record(at: number): void {
    this.#ring[this.#next] = at;
    this.#next = (this.#next + 1) % this.limit;
    this.#count = Math.min(this.limit, this.#count + 1);
    this.#last = at;
  }

  /** Sends recorded within the window ending at `now` (for headroom metrics). */
  usedAt(now: number): number {
    return this.#ring.filter((t) => t > now - this.windowMs).length;
  }
}
