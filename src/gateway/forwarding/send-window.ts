/**
 * One limiter node (§8): at most `limit` sends in any span of `windowMs` as the upstream counts them. A burst goes out
 * at once while the window has room for it; what the node cannot take now waits, and goes out paced when room comes
 * back, so that a backlog leaves the window's slots freeing evenly instead of in clumps (docs/forwarding.md, "The
 * limiter's policy").
 *
 * Exactness does not rest on guessing the network's delay: the upstream counts a request when it arrives, somewhere
 * between our send and its answer. So each of the last `limit` slots holds the time the *answer* came (an upper bound
 * of the arrival), and is held open while the request is in flight. A send takes the slot `limit` sends back only once
 * it closed a full window ago; then its arrival is at least a window after that earlier arrival, whatever the jitter.
 * The cost is one round trip per window.
 *
 * Room and pacing sit on top of that ring and never loosen it:
 * - `reserve` slots of the window (on a shared level) are kept for a newcomer — a route that has sent nothing through
 *   this node in its own window, such as another company's first send at the egress. Others may fill the window only
 *   up to `limit − reserve`, except late: the backlog may take the reserve once the slots behind it all free within
 *   `lendMs` (one paced interval), so that a newcomer coming just after still finds a slot that soon. Kept only while
 *   it can matter, the reserve costs a paced backlog nothing (D-360).
 * - Pacing is a burst allowance (GCRA): up to `limit − reserve` sends at once, refilled at one per
 *   `windowMs / limit`, the rate the window allows. A node that had no room for a send it was asked for is
 *   *held*: when room comes back its allowance starts from empty, so the backlog drains one send per interval rather
 *   than re-filling the window in one clump that would lock newcomers out for a whole window later.
 */
export class SendWindow {
  readonly #ring: number[];
  #next = 0;
  #inFlight = 0;
  #lastAnswer = Number.NEGATIVE_INFINITY;
  /** The earliest time a paced send may go; a past time is an allowance built up (capped by `burst`). */
  #pacedAt = Number.NEGATIVE_INFINITY;
  /** When it last refused a send for lack of room, since its last paced send. */
  #heldAt = Number.NEGATIVE_INFINITY;
  /** Slots of the window that only a newcomer may take. */
  readonly reserve: number;
  /** The most sends that go at once, and what a backlog may fill of the window. */
  readonly burst: number;
  /** One paced send per this many milliseconds: `limit` per window. */
  readonly spacingMs: number;
  /**
   * How soon the slots behind the reserve must free for the backlog to take the reserve: a newcomer that finds it
   * taken waits at most this long (plus a late timer) for the next slot (D-360).
   */
  readonly lendMs: number;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    /** Added to each window edge: clock granularity between two processes. */
    readonly marginMs = 1,
    reserve = 0,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError("limit must be a positive integer");
    this.#ring = new Array<number>(limit).fill(Number.NEGATIVE_INFINITY);
    this.reserve = Math.max(0, Math.min(reserve, limit - 1));
    this.burst = limit - this.reserve;
    this.spacingMs = windowMs / limit;
    this.lendMs = this.reserve > 0 ? this.spacingMs : 0;
  }

  /**
   * The earliest time a send waiting at this node may go (+Infinity while a slot it needs is still in flight).
   * A `newcomer` may take the reserve and is not paced. Asking is also how the node learns it is held: call it only
   * for a send that every level below this one allows now.
   */
  allowedAt(now: number, newcomer = false): number {
    const roomAt = newcomer ? this.#roomAt(1) : this.#backlogRoomAt();
    if (roomAt > now) this.#heldAt = now;
    return newcomer ? roomAt : Math.max(roomAt, this.#pacedAt);
  }

  /**
   * When a send that is not a newcomer's fits: once the oldest slot has been closed a full window (exactness), and the
   * `reserve` slots behind it free within `lendMs` — before that, the oldest is kept for a newcomer. A slot still in
   * flight never frees "within" anything (+Infinity): during a window's clump the reserve stays kept.
   */
  #backlogRoomAt(): number {
    return Math.max(this.#roomAt(1), this.#roomAt(this.reserve + 1) - this.lendMs);
  }

  /** When the oldest `slots` slots (in send order) have all been closed a full window: then that many sends fit. */
  #roomAt(slots: number): number {
    let latest = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < slots; i++) latest = Math.max(latest, this.#ring[(this.#next + i) % this.limit] ?? latest);
    return latest + this.windowMs + this.marginMs;
  }

  /** Records a send at `at`; returns its slot, to close with `complete` when the answer (or the failure) comes. */
  record(at: number, newcomer = false): number {
    // When room came back for this send (at or before `at`: a timer fires late), read before the ring moves on.
    const roomAt = newcomer ? at : this.#backlogRoomAt();
    const slot = this.#next;
    this.#ring[slot] = Number.POSITIVE_INFINITY;
    this.#next = (this.#next + 1) % this.limit;
    this.#inFlight++;
    if (!newcomer) {
      // GCRA: the allowance built up since the last paced send, at most `burst`; none when the node was held, counted
      // from when room came back rather than from this send, so that a late timer does not push the next send later.
      // While held, a node is asked at every look, so its last refusal is at most a window before room comes back;
      // one older than two windows is stale (the send it held went another way, say its credential was paused).
      const held = at - this.#heldAt <= 2 * this.windowMs;
      const from = held ? Math.max(roomAt, this.#heldAt) : at - (this.burst - 1) * this.spacingMs;
      this.#pacedAt = Math.max(this.#pacedAt, from) + this.spacingMs;
      this.#heldAt = Number.NEGATIVE_INFINITY;
    }
    return slot;
  }

  /** The answer to the send in `slot` arrived at `at`: the request reached the upstream no later than that. */
  complete(slot: number, at: number): void {
    this.#ring[slot] = at;
    this.#inFlight--;
    this.#lastAnswer = Math.max(this.#lastAnswer, at);
  }

  /** Nothing sent through this node is in flight or was answered within the last window: a newcomer above it. */
  idle(now: number): boolean {
    return this.#inFlight === 0 && this.#lastAnswer + this.windowMs + this.marginMs <= now;
  }

  /**
   * Takes over a send history kept elsewhere (another dispatcher's, mirrored in Redis): the answer times of the last
   * sends, an in-flight one by the latest time it can still arrive. The burst allowance starts full: the ring bounds
   * what it can send, and a node found full is held at its first refusal.
   */
  restore(answeredAt: readonly number[]): void {
    const last = [...answeredAt].sort((a, b) => a - b).slice(-this.limit);
    this.#ring.fill(Number.NEGATIVE_INFINITY);
    for (const [i, at] of last.entries()) this.#ring[this.limit - last.length + i] = at;
    this.#next = 0;
    this.#lastAnswer = last.at(-1) ?? Number.NEGATIVE_INFINITY;
    this.#pacedAt = Number.NEGATIVE_INFINITY;
    this.#heldAt = Number.NEGATIVE_INFINITY;
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
