import type pg from "pg";
import { INSERT_COLUMNS as COLUMNS, type NewSubmission, insertValues as rowValues } from "../row.js";

export { rowValues };

interface Pending {
  row: NewSubmission;
  resolve(): void;
  reject(error: unknown): void;
}

const CANONICAL_BODY = COLUMNS.indexOf("canonical_body");

/**
 * One statement for any number of rows: each column bound as one array and zipped by `unnest`, so the text never
 * changes with the batch's size and is prepared once per connection. `ON CONFLICT DO NOTHING … RETURNING id`: a row
 * whose unique key is taken (the partial idempotency index, or the id) is left out and the others are written.
 */
export const INSERT_BATCH = {
  name: "submissions_insert_batch",
  text: `INSERT INTO submissions (${COLUMNS.join(", ")})
    SELECT ${COLUMNS.map((_, i) => (i === CANONICAL_BODY ? `c${i}::json` : `c${i}`)).join(", ")}
    FROM unnest(${COLUMNS.map((_, i) => `$${i + 1}::text[]`).join(", ")}) AS t(${COLUMNS.map((_, i) => `c${i}`).join(", ")})
    ON CONFLICT DO NOTHING RETURNING id`,
} as const;

/** One row inside a caller's open transaction: a taken key fails the statement, as it does on SQLite. */
export const INSERT_ONE = {
  name: "submissions_insert_one",
  text: `INSERT INTO submissions (${COLUMNS.join(", ")})
    VALUES (${COLUMNS.map((_, i) => (i === CANONICAL_BODY ? `$${i + 1}::json` : `$${i + 1}`)).join(", ")})`,
} as const;

/** At most this many rows per statement (16 arrays of it: far from any limit, and one batch's latency stays small). */
const MAX_BATCH = 1_000;

/**
 * Group commit on PostgreSQL (D-239), as writer.ts does it on SQLite: every insert requested in one turn of the event
 * loop goes in one multi-row INSERT — one statement, so one transaction and one round trip — and each caller's promise
 * settles once it is committed: a 202 still means "committed". While `maxInFlight` batches are on their way, what
 * arrives waits and joins the next batch; below that, each turn's batch goes at once on another connection of the pool.
 * A row whose idempotency key is taken (by this batch, another batch, or another process) fails alone with a unique
 * violation (code 23505), the others commit. A statement that fails as a whole on one row's data (a missing company,
 * a constraint) is retried row by row, so that row fails alone too.
 */
export class PgSubmissionWriter {
  readonly #pool: pg.Pool;
  readonly #maxInFlight: number;
  readonly #pending: Pending[] = [];
  #scheduled = false;
  #inFlight = 0;

  constructor(pool: pg.Pool, maxInFlight = 2) {
    this.#pool = pool;
    this.#maxInFlight = maxInFlight;
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
        // #send settles every caller's promise itself and never rejects.
        void this.#send(batch).finally(() => {
          this.#inFlight--;
          this.#schedule();
        });
      }
    });
  }

  async #send(batch: Pending[]): Promise<void> {
    let inserted: Set<string>;
    try {
      const result = await this.#pool.query<{ id: string }>({ ...INSERT_BATCH, values: columnArrays(batch) });
      inserted = new Set(result.rows.map((r) => r.id));
    } catch (error) {
      if (batch.length > 1 && isRowError(error)) return this.#oneByOne(batch);
      for (const pending of batch) pending.reject(error);
      return;
    }
    for (const pending of batch) {
      if (inserted.has(pending.row.id)) pending.resolve();
      else pending.reject(uniqueViolation(pending.row));
    }
  }

  /** Each row in a statement of its own: only the row at fault fails. */
  async #oneByOne(batch: Pending[]): Promise<void> {
    await Promise.all(batch.map((pending) => this.#send([pending])));
  }
}

function columnArrays(batch: Pending[]): unknown[][] {
  const arrays: unknown[][] = COLUMNS.map(() => []);
  for (const pending of batch) {
    const values = rowValues(pending.row);
    for (let i = 0; i < values.length; i++) arrays[i]?.push(values[i]);
  }
  return arrays;
}

/** An error of the rows' data (SQLSTATE class 22, 23): another row of the batch may well be fine. */
function isRowError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}

/**
 * What a single-row INSERT of `row` would have thrown: PostgreSQL's unique violation (23505) on the idempotency index
 * (or the primary key, for a row without an idempotency key). Intake treats a failed insert as a possible race on its
 * idempotency key and looks for the replay (accept-submission.ts), as it does with SQLite's SQLITE_CONSTRAINT_UNIQUE.
 */
function uniqueViolation(row: NewSubmission): Error {
  const constraint = row.idempotencyKey == null ? "submissions_pkey" : "submissions_key_idem_uq";
  return Object.assign(new Error(`duplicate key value violates unique constraint "${constraint}"`), {
    code: "23505",
    constraint,
    table: "submissions",
  });
}
