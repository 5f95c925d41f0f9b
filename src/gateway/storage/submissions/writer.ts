import type { StoreSql } from "../sql/store-sql.js";
import { type Pending, postgresBatch, sqliteBatch } from "./inserts.js";
import type { NewSubmission } from "./row.js";

/** At most this many rows per batch: one batch's latency stays small (on PostgreSQL, one statement's JSON). */
const MAX_BATCH = 1_000;

/**
 * Group commit for accepted submissions (D-239): the inserts requested in one turn of the event loop are written as one
 * batch (inserts.ts), each caller's promise settled once it committed — a 202 still means "committed", the commit's
 * cost shared. One batch on its way at a time on SQLite (one writer), two on PostgreSQL; what arrives meanwhile joins
 * the next. The context's store makes one writer, shared by all of a process's intake.
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
