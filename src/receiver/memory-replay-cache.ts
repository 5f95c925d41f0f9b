import type { ReplayStore } from "../contract/replay-store.js";

/** A replay store the receiver can also mark events in (§6.6). */
export interface ReplayCache extends ReplayStore {
  markEventProcessed(eventId: string): void | Promise<void>;
}

export interface MemoryReplayCacheOptions {
  /** Bound on remembered delivery ids; the oldest go first when full. */
  maxDeliveries?: number;
  /** Bound on remembered event ids. */
  maxEvents?: number;
  /**
   * How long a processed event id is remembered. Retries of one event span about a day and a half with the usual
   * schedules, and an owner may redeliver from the dead letter later still: a week covers both.
   */
  eventTtlSeconds?: number;
  /** Milliseconds since the epoch (injectable for tests). */
  now?: () => number;
}

/**
 * In-memory §6.6 store for one process: bounded, expiring. It forgets on restart, so a receiver that must never
 * process an event twice across restarts implements `ReplayCache` on its own database.
 */
export class MemoryReplayCache implements ReplayCache {
  readonly #deliveries: ExpiringSet;
  readonly #events: ExpiringSet;
  readonly #eventTtl: number;
  readonly #now: () => number;

  constructor(options: MemoryReplayCacheOptions = {}) {
    this.#deliveries = new ExpiringSet(options.maxDeliveries ?? 100_000);
    this.#events = new ExpiringSet(options.maxEvents ?? 100_000);
    this.#eventTtl = options.eventTtlSeconds ?? 7 * 24 * 3600;
    this.#now = options.now ?? Date.now;
  }

  rememberDelivery(deliveryId: string, keepUntil: number): boolean {
    return this.#deliveries.add(deliveryId, keepUntil, this.#nowSeconds());
  }

  isEventProcessed(eventId: string): boolean {
    return this.#events.has(eventId, this.#nowSeconds());
  }

  markEventProcessed(eventId: string): void {
    const now = this.#nowSeconds();
    this.#events.add(eventId, now + this.#eventTtl, now);
  }

  #nowSeconds(): number {
    return Math.floor(this.#now() / 1000);
  }
}

/** Keys with an expiry (Unix seconds), kept in insertion order so the oldest are evicted first when full. */
class ExpiringSet {
  readonly #expiries = new Map<string, number>();
  readonly #max: number;

  constructor(max: number) {
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError("a replay cache bound must be a positive integer");
    this.#max = max;
  }

  /** False when the key is present and unexpired. */
  add(key: string, expiresAt: number, now: number): boolean {
    if (this.has(key, now)) return false;
    this.#sweep(now);
    this.#expiries.set(key, expiresAt);
    for (const oldest of this.#expiries.keys()) {
      if (this.#expiries.size <= this.#max) break;
      this.#expiries.delete(oldest);
    }
    return true;
  }

  has(key: string, now: number): boolean {
    const expiresAt = this.#expiries.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt >= now) return true;
    this.#expiries.delete(key);
    return false;
  }

  /** Drops expired keys from the old end; stops at the first live one so each call does bounded work on average. */
  #sweep(now: number): void {
    for (const [key, expiresAt] of this.#expiries) {
      if (expiresAt >= now) break;
      this.#expiries.delete(key);
    }
  }
}
