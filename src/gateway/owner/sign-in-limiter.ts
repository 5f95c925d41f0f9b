import { ApiError } from "../../http/errors.js";
import { IntakeLimiter } from "../intake/intake-limiter.js";

/**
 * Sign-in attempts are rate-limited per account and per client address (password guessing), with the same token
 * bucket as intake: a few quick tries, then one per `refillSeconds`. Every attempt costs a token, a correct one too,
 * so the limiter reveals nothing about the password.
 */
export class SignInLimiter {
  readonly #byEmail: IntakeLimiter;
  readonly #byAddress: IntakeLimiter;

  constructor(options: { perEmailBurst?: number; perAddressBurst?: number; refillSeconds?: number } = {}) {
    const rate = 1 / (options.refillSeconds ?? 12);
    this.#byEmail = new IntakeLimiter(rate, options.perEmailBurst ?? 10);
    this.#byAddress = new IntakeLimiter(rate * 5, options.perAddressBurst ?? 50);
  }

  take(email: string, address: string): void {
    try {
      this.#byEmail.take(email.trim().toLowerCase());
      this.#byAddress.take(address);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      throw new ApiError("rate_limited", "too many sign-in attempts: wait and try again", { headers: error.headers });
    }
  }
}
