/**
 * The async gate of the one SQLite connection (D-222): while a transaction is open, a statement from outside waits
 * until it ends, and transactions queue one at a time. One boolean read when none is open.
 */
export class SqliteGate {
  /** A transaction is running: outside statements wait. */
  #open = false;
  /** A transaction runs or was handed the connection: transactions queue. */
  #held = false;
  /** Outside statements waiting for the open transaction to end. */
  #waiting: (() => void)[] = [];
  /** Transactions waiting for their turn, in order. */
  #queued: (() => void)[] = [];

  get busy(): boolean {
    return this.#open;
  }

  /** Resolves once no transaction holds the connection (check `busy` again: another may have begun meanwhile). */
  pass(): Promise<void> {
    if (!this.#open) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Runs `work` holding the connection: it begins once every earlier transaction ended. */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    if (this.#held) await new Promise<void>((resolve) => this.#queued.push(resolve));
    this.#held = true;
    this.#open = true;
    try {
      return await work();
    } finally {
      this.#release();
    }
  }

  #release(): void {
    this.#open = false;
    // The statements that waited go first (each resumes and runs in its own turn, before the next transaction's
    // continuation: promise reactions run in the order they were resolved), then the next transaction.
    for (const resolve of this.#waiting.splice(0)) resolve();
    const next = this.#queued.shift();
    // Handed over: a transaction arriving before the next one's continuation runs queues behind it.
    if (next) next();
    else this.#held = false;
  }
}
