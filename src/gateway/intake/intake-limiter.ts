import { ApiError } from "../../http/errors.js";

/**
 * The gateway's own intake limit per vendor key: a token bucket, generous by default. It exists to absorb bursts —
 * the upstream's exact limits (§8) are kept by forwarding, not here — while stopping one vendor from flooding the
 * gateway.
 */
export class IntakeLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  take(keyId: string): void {
    const now = this.now();
    const bucket = this.#buckets.get(keyId) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.#buckets.set(keyId, bucket);
      const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond));
      throw new ApiError("rate_limited", "intake rate limit of this key exceeded", {
        headers: { "retry-after": String(seconds) },
      });
    }
    bucket.tokens -= 1;
    this.#buckets.set(keyId, bucket);
  }
}
