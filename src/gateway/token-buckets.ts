/**
 * Token buckets by key (a vendor key, a sign-in's e-mail or address, a company): each holds up to `burst` tokens and
 * refills at `ratePerSecond`. The state is bounded whatever the keys (docs/decisions.md, "Bounded input"): a bucket
 * idle long enough to have refilled is the same as none and is dropped, and past `maxKeys` the least recently used is
 * dropped too (that key starts again from a full bucket). The map keeps its keys in the order they were last used, so
 * both are found at its front, at a cost of one move per take.
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  /** An empty bucket is full again after this long: an entry idle for it holds nothing a new one would not. */
  readonly #refillMs: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly maxKeys = 100_000,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#refillMs = (burst / ratePerSecond) * 1000;
  }

  /**
   * Takes `cost` tokens from the key's bucket (a cost over the burst takes the whole burst): 0 when taken, otherwise
   * the seconds to wait before the key has them (nothing is taken then).
   */
  take(key: string, cost = 1): number {
    const now = this.now();
    this.#evict(now);
    const need = Math.min(cost, this.burst);
    const bucket = this.#buckets.get(key);
    let tokens = this.burst;
    if (bucket) {
      tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond);
      this.#buckets.delete(key);
    }
    const taken = tokens >= need;
    this.#buckets.set(key, { tokens: taken ? tokens - need : tokens, at: now });
    return taken ? 0 : Math.max(1, Math.ceil((need - tokens) / this.ratePerSecond));
  }

  /** Keys with state held, for tests and metrics. */
  get size(): number {
    return this.#buckets.size;
  }

  #evict(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (this.#buckets.size < this.maxKeys && now - bucket.at < this.#refillMs) return;
      this.#buckets.delete(key);
    }
  }
}
