import { sql } from "kysely";
import { isStoreOutage } from "../../outage/store-outage.js";
import type { StoreSql } from "../sql/store-sql.js";
import { compiledOnce, type Target } from "./compiled.js";
import { INSERT_FIELDS, type NewSubmission } from "./row.js";

/** One caller's accepted submission, waiting for its batch. */
export interface Pending {
  row: NewSubmission;
  resolve(): void;
  reject(error: unknown): void;
}

/** One accepted submission: the fields of INSERT_FIELDS, the other columns left to their defaults. */
const INSERT_ONE = compiledOnce<NewSubmission>()((db, row) =>
  db.insertInto("submissions").values({
    id: row.id,
    companyId: row.companyId,
    vendorKeyId: row.vendorKeyId,
    credentialId: row.credentialId,
    kind: row.kind,
    status: row.status,
    rawPayload: row.rawPayload,
    canonicalBody: row.canonicalBody,
    profileVersionId: row.profileVersionId,
    idempotencyKey: row.idempotencyKey,
    payloadDigest: row.payloadDigest,
    upstreamIdempotencyKey: row.upstreamIdempotencyKey,
    contactEmail: row.contactEmail,
    contactPhone: row.contactPhone,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    connectionId: row.connectionId,
    heldReason: row.heldReason,
    note: row.note,
    vendorRecordId: row.vendorRecordId,
    recordAction: row.recordAction,
    test: row.test ?? false,
    fetchTarget: row.fetchTarget,
  }),
);

/** The SQL type of each field in the batch's JSON rows (json_to_recordset's record), and what a missing one reads as. */
const BATCH_COLUMNS: Readonly<Record<(typeof INSERT_FIELDS)[number], string>> = {
  id: "text",
  companyId: "text",
  vendorKeyId: "text",
  credentialId: "text",
  kind: "text",
  status: "text",
  rawPayload: "text",
  canonicalBody: "json",
  profileVersionId: "text",
  idempotencyKey: "text",
  payloadDigest: "text",
  upstreamIdempotencyKey: "text",
  contactEmail: "text",
  contactPhone: "text",
  createdAt: "text",
  updatedAt: "text",
  connectionId: "text",
  heldReason: "text",
  note: "text",
  vendorRecordId: "text",
  recordAction: "text",
  test: "boolean",
  fetchTarget: "json",
};

/** A field of the batch's rows as selected: a row that leaves out `test` is not a test (its column's default). */
const selected = (field: (typeof INSERT_FIELDS)[number]) =>
  field === "test" ? `coalesce("test", false)` : `"${field}"`;

/**
 * One row inside the caller's open transaction: it commits with that transaction. A taken idempotency key fails the
 * statement; on PostgreSQL that aborts the caller's transaction too (it rolls back transactions, not statements: D-239).
 */
export async function insertNow(target: Target, row: NewSubmission): Promise<void> {
  await INSERT_ONE.run(target, row);
}

/**
 * A batch on SQLite: its rows one by one in one transaction (BEGIN … COMMIT at the gate, D-222), so the commit is paid
 * once. A row that fails (a unique idempotency key taken by another process) fails alone — SQLite undoes the statement,
 * not the transaction — and the others commit. One `INSERT … SELECT … FROM json_each(?)` for the whole batch measured
 * half as much CPU again per row (docs/decisions.md, D-275). A row failing for want of the database itself (a full
 * disk, a read-only file: SQLite may then have rolled the transaction back on its own, and the rows after it would
 * commit one by one) fails the whole batch, rolled back: nobody is told "committed" of a row that was not, and no row
 * commits whose caller was refused (D-331). Settles every caller itself; never rejects.
 */
export async function sqliteBatch(store: StoreSql, batch: Pending[]): Promise<void> {
  let failures: Map<Pending, unknown>;
  try {
    failures = await store.atomically(async (db) => {
      const failed = new Map<Pending, unknown>();
      const target = { db, dialect: store.dialect };
      for (const pending of batch) {
        try {
          await INSERT_ONE.run(target, pending.row);
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
 * A batch on PostgreSQL (D-239): one statement — one transaction, one round trip — whose text never changes with the
 * batch's size: the rows go as one JSON array, turned back into rows by `json_to_recordset` (its record's columns are
 * the rows' own field names). `ON CONFLICT DO NOTHING … RETURNING id`: a row whose unique key is taken (the partial
 * idempotency index, or the id) is left out and the others are written.
 */
const INSERT_BATCH = compiledOnce<{ rows: NewSubmission[] }>()((db, args) =>
  db
    .insertInto("submissions")
    .columns(INSERT_FIELDS)
    .expression(
      sql`select ${sql.raw(INSERT_FIELDS.map(selected).join(", "))}
        from json_to_recordset(${args.rows}::json)
        as batch(${sql.raw(INSERT_FIELDS.map((f) => `"${f}" ${BATCH_COLUMNS[f]}`).join(", "))})`,
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
