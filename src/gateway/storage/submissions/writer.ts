import type { StoreSql } from "../sql/store-sql.js";
import { type Pending, postgresBatch, sqliteBatch } from "./inserts.js";
import type { NewSubmission } from "./row.js";

/** At most this many rows per batch: one batch's latency stays small (on PostgreSQL, one statement's JSON). */
const MAX_BATCH = 1_000;

/**
 * Group commit for accepted submissions (D-239): every insert requested in one turn of the event loop is written as
 * one batch, and each caller's promise settles only after that batch has committed — so a 202 still means
 * "committed", while the cost of a commit is shared by every request that arrived together. A row that fails (a unique
 * idempotency key taken by another process) fails alone; the others commit. What differs is the batch's statement
 * (inserts.ts): SQLite's rows one by one in a transaction of their own at the gate (it commits on its own, never
 * inside another's transaction; one batch at a time, SQLite having one writer), PostgreSQL's one multi-row statement
 * (two on their way at once, each on a connection of the pool). While that many are on their way, what arrives waits
 * and joins the next batch. The context's store makes one writer, so all of a process's intake shares it.
 */
export class SubmissionWriter {
  readonly #store: StoreSql;
  readonly #write: (store: StoreSql, batch: Pending[]) => Promise<void>;
  readonly #maxInFlight: number;
  readonly #pending: Pending[] = [];
  #scheduled = false;
  #inFlight = 0;

  constructor(store: StoreSql) {
    this.#store = store;
    this.#write = store.dialect === "sqlite" ? sqliteBatch : postgresBatch;
    this.#maxInFlight = store.dialect === "sqlite" ? 1 : 2;
  }

  insert(row: NewSubmission): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ row, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#maxInFlight || this.#pending.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      while (this.#pending.length > 0 && this.#inFlight < this.#maxInFlight) {
        const batch = this.#pending.splice(0, MAX_BATCH);
        this.#inFlight++;
        // The batch settles every caller's promise itself and never rejects.
        void this.#write(this.#store, batch).finally(() => {
          this.#inFlight--;
          this.#schedule();
        });
      }
    });
  }
}
