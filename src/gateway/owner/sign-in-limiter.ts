import { ApiError } from "../../http/errors.js";
import { TokenBuckets } from "../token-buckets.js";

/** Sign-ins held per limiter at most: a few megabytes of e-mails (at most 254 characters each) and addresses. */
const MAX_KEYS = 20_000;

/**
 * Sign-in attempts are rate-limited per client address and per account (password guessing): a few quick tries, then
 * one per `refillSeconds`. Every attempt costs a token, a correct one too, so the limiter reveals nothing about the
 * password. The address is checked first, and an address over its limit stores nothing for the account it named, so
 * unauthenticated requests cannot grow the account buckets faster than their addresses are allowed to (docs/decisions.md,
 * "Bounded input").
 */
export class SignInLimiter {
  readonly #byEmail: TokenBuckets;
  readonly #byAddress: TokenBuckets;

  constructor(options: { perEmailBurst?: number; perAddressBurst?: number; refillSeconds?: number } = {}) {
    const rate = 1 / (options.refillSeconds ?? 12);
    this.#byEmail = new TokenBuckets(rate, options.perEmailBurst ?? 10, MAX_KEYS);
    this.#byAddress = new TokenBuckets(rate * 5, options.perAddressBurst ?? 50, MAX_KEYS);
  }

  /** `address`: the client's, as clientAddress() keys it (an IPv6 client by its /64). */
  take(email: string, address: string): void {
    const wait = this.#byAddress.take(address) || this.#byEmail.take(email.trim().toLowerCase());
    if (wait > 0) {
      throw new ApiError("rate_limited", "too many sign-in attempts: wait and try again", {
        headers: { "retry-after": String(wait) },
      });
    }
  }

  /** Buckets held (addresses, e-mails), for tests. */
  get size(): { addresses: number; emails: number } {
    return { addresses: this.#byAddress.size, emails: this.#byEmail.size };
  }
}
