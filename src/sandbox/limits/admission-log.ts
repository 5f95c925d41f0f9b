/**
 * An exact sliding-window log (§8): admits a request at time t only if fewer than `limit` admissions happened in
 * (t − windowMs, t]. So no half-open span [x, x + windowMs) ever holds more than `limit` admissions — a fixed window
 * admits 2× across its edge, an approximated window admits some too. Each subject keeps a ring buffer of its last
 * `limit` admission times: checking and recording are O(1) amortised, memory O(limit) per active subject.
 */
export interface WindowState {
  /** Admissions possible now, this request included. */
  available: number;
  /** 0 when a request may be admitted now, else the milliseconds until the oldest admission leaves the window. */
  retryAfterMs: number;
  /** Milliseconds until the oldest admission in the window leaves it (0 when the window is empty). */
  resetMs: number;
}

class Ring {
  readonly times: Float64Array;
  head = 0;
  size = 0;

  constructor(limit: number) {
    this.times = new Float64Array(limit);
  }

  oldest(): number {
    return this.times[this.head] ?? 0;
  }

  /** Drops admissions at or before `now − windowMs`: they no longer count. */
  expire(now: number, windowMs: number): void {
    while (this.size > 0 && this.oldest() <= now - windowMs) {
      this.head = (this.head + 1) % this.times.length;
      this.size -= 1;
    }
  }

  push(now: number): void {
    this.times[(this.head + this.size) % this.times.length] = now;
    this.size += 1;
  }
}

export class AdmissionLog {
  private readonly rings = new Map<string, Ring>();
  private checks = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError("limit must be a positive integer");
    if (!(windowMs > 0)) throw new RangeError("windowMs must be positive");
  }

  /** The state for `subject` at `now`, without recording anything. */
  peek(subject: string, now: number): WindowState {
    this.sweepNowAndThen(now);
    const ring = this.rings.get(subject);
    if (!ring) return { available: this.limit, retryAfterMs: 0, resetMs: 0 };
    ring.expire(now, this.windowMs);
    const resetMs = ring.size > 0 ? ring.oldest() + this.windowMs - now : 0;
    const available = this.limit - ring.size;
    return { available, retryAfterMs: available > 0 ? 0 : resetMs, resetMs };
  }

  /** Records an admission; call only after `peek` said it may be admitted. */
  record(subject: string, now: number): void {
    let ring = this.rings.get(subject);
    if (!ring) {
      ring = new Ring(this.limit);
      this.rings.set(subject, ring);
    }
    ring.expire(now, this.windowMs);
    if (ring.size >= this.limit) throw new Error("admission log: recording past the limit");
    ring.push(now);
  }

  /** Subjects currently tracked (tests check that idle ones are dropped). */
  get trackedSubjects(): number {
    return this.rings.size;
  }

  /** Idle subjects are forgotten now and then so one-off IPs and keys do not accumulate. */
  private sweepNowAndThen(now: number): void {
    this.checks += 1;
    if (this.checks % 4096 !== 0) return;
    for (const [subject, ring] of this.rings) {
      ring.expire(now, this.windowMs);
      if (ring.size === 0) this.rings.delete(subject);
    }
  }
}
