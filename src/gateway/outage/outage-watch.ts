import type { Logger } from "../../log.js";
import { type OutageCause, outageCause } from "./store-outage.js";

/**
 * For a periodic check that must not wait (a readiness ping, a leader's look at the database before it renews, the
 * checkpoint thread's report): each try says whether it failed, and the outage is logged once when it begins and once
 * when it ends — never once per try (D-332). OutageRetry is the same for steps that wait for the store.
 */
export class OutageWatch {
  readonly #name: string;
  readonly #log: Logger;
  readonly #onChange: ((outage: { since: number; cause: OutageCause } | undefined) => void) | undefined;
  #since: number | undefined;
  #failedTries = 0;

  constructor(options: {
    name: string;
    log: Logger;
    onChange?: (outage: { since: number; cause: OutageCause } | undefined) => void;
  }) {
    this.#name = options.name;
    this.#log = options.log;
    this.#onChange = options.onChange;
  }

  get down(): boolean {
    return this.#since !== undefined;
  }

  /** Since when the store has failed this check, if it does now. */
  get since(): number | undefined {
    return this.#since;
  }

  /** A try failed: true if the error is an outage (logged when it is the first of one), false for any other error. */
  failed(error: unknown, now = Date.now()): boolean {
    const cause = outageCause(error);
    if (!cause) return false;
    this.#failedTries++;
    if (this.#since !== undefined) return true;
    this.#since = now;
    this.#log.warn(
      { loop: this.#name, reason: cause.reason, code: cause.code, error: cause.message },
      `${this.#name}: store unavailable`,
    );
    this.#onChange?.({ since: now, cause });
    return true;
  }

  /** A try succeeded: the outage, if any, is over. */
  succeeded(now = Date.now()): void {
    const since = this.#since;
    if (since === undefined) return;
    this.#log.info(
      { loop: this.#name, failedTries: this.#failedTries, outageMs: now - since },
      `${this.#name}: store available again`,
    );
    this.#since = undefined;
    this.#failedTries = 0;
    this.#onChange?.(undefined);
  }
}
