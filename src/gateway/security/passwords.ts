import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { ApiError } from "../../http/errors.js";

/** scrypt's work factors: N (CPU and memory, a power of two), r (block size), p (parallelism). */
export interface PasswordCost {
  N: number;
  r: number;
  p: number;
}

/**
 * OWASP's current recommendation for scrypt (Password Storage Cheat Sheet): N = 2^17, r = 8, p = 1, so 128 MiB and
 * a few hundred milliseconds of one core per hash. Owner passwords are low-entropy, unlike API secrets (a digest).
 */
export const OWASP_SCRYPT: PasswordCost = { N: 2 ** 17, r: 8, p: 1 };

const LENGTH = 32;
const SALT_BYTES = 16;

export interface PasswordCheck {
  ok: boolean;
  /** Hashed at a lower cost than the current one: hash it again now that the password is known. */
  outdated: boolean;
}

/**
 * Hashes and verifies owner passwords with scrypt at a configured cost, at most `maxConcurrent` at once (each takes
 * 128 MiB and a core at the OWASP cost): a flood of sign-ins from many addresses queues here instead of exhausting
 * memory and the thread pool, and past `maxWaiting` is refused with 503 (retry shortly). The sign-in route asks for a
 * hash only after its rate limits admitted the request.
 */
export class PasswordHasher {
  readonly #cost: PasswordCost;
  readonly #maxConcurrent: number;
  readonly #maxWaiting: number;
  readonly #waiting: (() => void)[] = [];
  #running = 0;
  #peak = 0;
  #derivations = 0;
  /** Verified against when the account does not exist, at the current cost, so timing tells nothing. */
  readonly #absent = randomBytes(SALT_BYTES);

  constructor(cost: PasswordCost = OWASP_SCRYPT, options: { maxConcurrent?: number; maxWaiting?: number } = {}) {
    this.#cost = cost;
    this.#maxConcurrent = Math.max(1, options.maxConcurrent ?? 2);
    this.#maxWaiting = options.maxWaiting ?? 32;
  }

  async hash(password: string): Promise<string> {
    const { N, r, p } = this.#cost;
    const salt = randomBytes(SALT_BYTES);
    const hash = await this.#derive(password, salt, this.#cost);
    return `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
  }

  /** Checks `password` against a stored hash; without one (an unknown account) the same work is done, and fails. */
  async verify(password: string, stored: string | undefined): Promise<PasswordCheck> {
    const parsed = stored === undefined ? undefined : parse(stored);
    if (!parsed) {
      await this.#derive(password, this.#absent, this.#cost);
      return { ok: false, outdated: false };
    }
    const actual = await this.#derive(password, parsed.salt, parsed.cost);
    const ok = actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash);
    const { N, r, p } = parsed.cost;
    return { ok, outdated: N < this.#cost.N || r < this.#cost.r || p < this.#cost.p };
  }

  stats(): { running: number; waiting: number; peak: number; derivations: number } {
    return { running: this.#running, waiting: this.#waiting.length, peak: this.#peak, derivations: this.#derivations };
  }

  async #derive(password: string, salt: Buffer, cost: PasswordCost): Promise<Buffer> {
    await this.#acquire();
    try {
      this.#derivations++;
      return await new Promise((resolve, reject) => {
        // scrypt needs 128 × N × r bytes; twice that leaves room for its own bookkeeping.
        const maxmem = 256 * cost.N * cost.r;
        scrypt(password, salt, LENGTH, { N: cost.N, r: cost.r, p: cost.p, maxmem }, (err, key) =>
          err ? reject(err) : resolve(key),
        );
      });
    } finally {
      this.#release();
    }
  }

  #acquire(): Promise<void> {
    if (this.#running < this.#maxConcurrent) {
      this.#running++;
      this.#peak = Math.max(this.#peak, this.#running);
      return Promise.resolve();
    }
    if (this.#waiting.length >= this.#maxWaiting) {
      return Promise.reject(
        new ApiError("unavailable", "too many sign-ins at once: retry shortly", { headers: { "retry-after": "1" } }),
      );
    }
    // The slot is handed over by #release, so `running` stays counted.
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running--;
  }
}

function parse(stored: string): { cost: PasswordCost; salt: Buffer; hash: Buffer } | undefined {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return undefined;
  return {
    cost: { N: Number(n), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt, "base64url"),
    hash: Buffer.from(hash, "base64url"),
  };
}
