import { sql } from "kysely";
import { isStoreOutage } from "../../outage/store-outage.js";
import { CompiledOnce, type On, pick } from "../sql/compiled.js";
import type { StoreSql } from "../sql/store-sql.js";
import { pgTypeOf } from "../sql/values.js";
import { INSERT_FIELDS, type NewSubmission } from "./row.js";

/** One caller's accepted submission, waiting for its batch. */
export interface Pending {
  row: NewSubmission;
  resolve(): void;
  reject(error: unknown): void;
}

/** One accepted submission: INSERT_FIELDS, the other columns' defaults. A row that leaves out `test` is no test. */
const INSERT_ONE = new CompiledOnce((on, row: NewSubmission) =>
  on.db
    .insertInto("submissions")
    .values({ ...pick(row, INSERT_FIELDS), test: sql<boolean>`coalesce(${row.test}, false)` }),
);

/** The batch's JSON rows as json_to_recordset's record, each field in its column's type; without `test`, no test. */
const BATCH_RECORD = INSERT_FIELDS.map((field) => `"${field}" ${pgTypeOf("submissions", field)}`).join(", ");
const BATCH_FIELDS = INSERT_FIELDS.map((field) => (field === "test" ? `coalesce("test", false)` : `"${field}"`)).join(
  ", ",
);

/** One row in the caller's open transaction. A taken idempotency key fails it; on PostgreSQL, all of it (D-239). */
export async function insertNow(target: On, row: NewSubmission): Promise<void> {
  await INSERT_ONE.run(target, row);
}

/**
 * A batch on SQLite: its rows one by one in one transaction at the gate (D-222), the commit paid once; one
 * `INSERT … SELECT … FROM json_each(?)` measured half as much CPU again per row (D-275). A row that fails (a taken
 * idempotency key) fails alone: SQLite undoes the statement, not the transaction. A row failing for want of the
 * database itself (a full disk, a read-only file) fails the whole batch, rolled back: no caller is told "committed" of
 * a row that was not, and none refused has a row committed (D-331). Settles every caller itself; never rejects.
 */
export async function sqliteBatch(store: StoreSql, batch: Pending[]): Promise<void> {
  let failures: Map<Pending, unknown>;
  try {
    failures = await store.atomically(async (db) => {
      const failed = new Map<Pending, unknown>();
      const target = { db, dialect: store.dialect };
      for (const pending of batch) {
        try {
          // At once inside the batch's transaction (D-363): no promise turn per row while the writer is held.
          const written = INSERT_ONE.write(target, pending.row);
          if (written !== undefined) await written;
        } catch (error) {
          if (isStoreOutage(error)) throw error;
          failed.set(pending, error);
        }
      }
      return failed;
    });
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

/**
 * A batch on PostgreSQL (D-239): one statement, one round trip, whose text does not change with the batch's size (the
 * rows as one JSON array, `json_to_recordset`). A row whose unique key is taken is left out, the others written.
 */
const INSERT_BATCH = new CompiledOnce((on, args: { rows: NewSubmission[] }) =>
  on.db
    .insertInto("submissions")
    .columns(INSERT_FIELDS)
    .expression(
      sql`select ${sql.raw(BATCH_FIELDS)}
        from json_to_recordset(${args.rows}::json) as batch(${sql.raw(BATCH_RECORD)})`,
    )
    .onConflict((conflict) => conflict.doNothing())
    .returning("id"),
);

/**
 * A row left out had its idempotency key taken (by this batch, another batch, or another process): its caller is
 * rejected alone with what a single-row INSERT would have thrown. A statement that fails as a whole on one row's data
 * (a missing company, a constraint) is retried row by row, so that row fails alone too. Settles every caller itself;
 * never rejects.
 */
export async function postgresBatch(store: StoreSql, batch: Pending[]): Promise<void> {
  let inserted: Set<string>;
  try {
    const result = await INSERT_BATCH.run(store, { rows: batch.map((pending) => pending.row) });
    inserted = new Set(result.rows.map((r) => r.id));
  } catch (error) {
    if (batch.length > 1 && isRowError(error)) {
      await Promise.all(batch.map((pending) => postgresBatch(store, [pending])));
      return;
    }
    for (const pending of batch) pending.reject(error);
    return;
  }
  for (const pending of batch) {
    if (inserted.has(pending.row.id)) pending.resolve();
    else pending.reject(uniqueViolation(pending.row));
  }
}

/** An error of the rows' data (SQLSTATE class 22, 23): another row of the batch may well be fine. */
function isRowError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}

/**
 * What a single-row INSERT of `row` would have thrown: PostgreSQL's unique violation (23505) on the idempotency index
 * (or the primary key, for a row without an idempotency key). Intake treats a failed insert as a possible race on its
 * idempotency key and looks for the replay (accept-submission.ts), as it does after SQLite's SQLITE_CONSTRAINT_UNIQUE.
 */
function uniqueViolation(row: NewSubmission): Error {
  const constraint = row.idempotencyKey == null ? "submissions_pkey" : "submissions_key_idem_uq";
  return Object.assign(new Error(`duplicate key value violates unique constraint "${constraint}"`), {
    code: "23505",
    constraint,
    table: "submissions",
  });
}
