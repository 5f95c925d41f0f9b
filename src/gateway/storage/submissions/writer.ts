import type { SqliteDatabase } from "../../../db/sqlite.js";
import type { GateView } from "../sqlite-gate.js";
import { INSERT_COLUMNS as COLUMNS, type NewSubmission, insertValues as values } from "./row.js";

interface Pending {
  row: NewSubmission;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit for accepted submissions: every insert requested in one turn of the event loop is written in a single
 * transaction, and each caller's promise settles only after that commit — so a 202 still means "committed", while
 * the cost of a commit is shared by every request that arrived together. A row that fails (a unique idempotency key
 * taken by another process) fails alone; the others commit. The batch waits at the connection's gate while an
 * asynchronous transaction holds it (sqlite-gate.ts): it commits on its own, never inside another's transaction.
 */
export class SubmissionWriter {
  readonly #pending: Pending[] = [];
  readonly #insert;
  readonly #flushAll;
  readonly #gate: GateView;
  #scheduled = false;

  constructor(sqlite: SqliteDatabase, gate: GateView) {
    this.#gate = gate;
    this.#insert = sqlite.prepare(
      `insert into submissions (${COLUMNS.join(", ")}) values (${COLUMNS.map(() => "?").join(", ")})`,
    );
    this.#flushAll = sqlite.transaction((batch: Pending[]) => {
      const failures = new Map<Pending, unknown>();
      for (const pending of batch) {
        try {
          this.#insert.run(values(pending.row));
        } catch (error) {
          failures.set(pending, error);
        }
      }
      return failures;
    });
  }

  insert(row: NewSubmission): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ row, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** One insert inside the caller's open transaction (the stores bound to it): it commits with that transaction. */
  insertNow(row: NewSubmission): void {
    this.#insert.run(values(row));
  }

  #flush(): void {
    if (this.#gate.busy) {
      // Still scheduled: what arrives meanwhile joins this batch.
      this.#gate.pass().then(
        () => this.#flush(),
        () => undefined,
      );
      return;
    }
    this.#scheduled = false;
    const batch = this.#pending.splice(0);
    let failures: Map<Pending, unknown>;
    try {
      failures = this.#flushAll(batch);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    for (const pending of batch) {
      const failure = failures.get(pending);
      if (failure === undefined) pending.resolve();
      else pending.reject(failure);
    }
  }
}
