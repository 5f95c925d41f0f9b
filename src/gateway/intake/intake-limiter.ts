import { ApiError } from "../../http/errors.js";
import { TokenBuckets } from "../token-buckets.js";

/**
 * The gateway's own intake limit per vendor key: a token bucket, generous by default. It exists to absorb bursts —
 * the upstream's exact limits (§8) are kept by forwarding, not here — while stopping one vendor from flooding the
 * gateway. Keys are authenticated before they reach it, and an idle key's bucket is dropped (token-buckets.ts).
 */
export class IntakeLimiter {
  readonly #buckets: TokenBuckets;

  constructor(ratePerSecond: number, burst: number, now?: () => number) {
    this.#buckets = new TokenBuckets(ratePerSecond, burst, undefined, now);
  }

  take(keyId: string): void {
    const wait = this.#buckets.take(keyId);
    if (wait > 0) {
      throw new ApiError("rate_limited", "intake rate limit of this key exceeded", {
        headers: { "retry-after": String(wait) },
      });
    }
  }
}
