import type { submissionAttempts } from "../../src/db/schema/index.js";
import type { StorageHandles } from "../../src/gateway/storage/open-storage.js";
import type { Sql } from "../../src/gateway/storage/sql/database.js";
import { postgresSql } from "../../src/gateway/storage/sql/postgres.js";
import { sqliteSql } from "../../src/gateway/storage/sql/sqlite.js";
import { SqliteGate } from "../../src/gateway/storage/sqlite-gate.js";
import { type SubmissionRow, submissionRow } from "../../src/gateway/storage/submissions/index.js";
import { newId } from "../../src/ids.js";

export interface SeedSpec {
  companyId: string;
  vendorKeyId: string;
  credentialId: string;
  /** Created at, ms since the epoch. */
  at: number;
  status?: SubmissionRow["status"];
  /** Accept-to-forwarded time, for forwarded rows. */
  latencyMs?: number;
  payload?: unknown;
  /** Record this many upstream attempts, at `at`. */
  attempts?: number;
  /** The person's contact, as intake records it for erasure (§5.9). */
  contactEmail?: string;
  contactPhone?: string;
}

type AttemptInsert = typeof submissionAttempts.$inferInsert;
/** One multi-row insert of each table. */
interface Batch {
  rows: SubmissionRow[];
  attempts: AttemptInsert[];
}

/**
 * Writes submissions straight into the database in one transaction through the submission-row builder, on either
 * store (D-259): fast enough for 100,000 rows, and the rows are what intake and forwarding would have written.
 */
export async function seedSubmissions(
  gateway: { database: StorageHandles },
  specs: Iterable<SeedSpec>,
): Promise<string[]> {
  const ids: string[] = [];
  const batches = inBatches(specs, ids);
  const { database } = gateway;
  if (database.dialect === "sqlite") {
    // A query builder of its own on the file's connection, its BEGIN … COMMIT by hand (the storage's gate is not ours).
    const { sqlite } = database.database;
    sqlite.exec("BEGIN");
    try {
      await insertAll(sqliteSql(sqlite, new SqliteGate()).inside, batches);
      sqlite.exec("COMMIT");
    } finally {
      if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
    }
  } else {
    // Not destroyed after: that would end the pool, which is the gateway's.
    await postgresSql(database.database.pool)
      .transaction()
      .execute((tx) => insertAll(tx, batches));
  }
  return ids;
}

async function insertAll(db: Sql, batches: Iterable<Batch>): Promise<void> {
  for (const { rows, attempts } of batches) {
    if (rows.length) await db.insertInto("submissions").values(rows).execute();
    if (attempts.length) await db.insertInto("submissionAttempts").values(attempts).execute();
  }
}

/**
 * The rows of `specs` in multi-row inserts of a few hundred rows each (the bound-parameter limits, and far less
 * per-statement cost), made as they are inserted; each submission's id pushed to `ids`.
 */
function* inBatches(specs: Iterable<SeedSpec>, ids: string[]): Generator<Batch> {
  let batch: Batch = { rows: [], attempts: [] };
  for (const spec of specs) {
    const id = newId("sub", spec.at);
    const createdAt = new Date(spec.at).toISOString();
    const status = spec.status ?? "forwarded";
    const forwardedAt = status === "forwarded" ? new Date(spec.at + (spec.latencyMs ?? 150)).toISOString() : null;
    batch.rows.push(
      submissionRow({
        id,
        companyId: spec.companyId,
        vendorKeyId: spec.vendorKeyId,
        credentialId: spec.credentialId,
        kind: "lead",
        status,
        payloadDigest: id,
        createdAt,
        rawPayload: JSON.stringify(spec.payload ?? { n: ids.length }),
        canonicalBody: { fullName: "Seed Person", email: "seed@example.com" },
        contactEmail: spec.contactEmail ?? null,
        contactPhone: spec.contactPhone ?? null,
        forwardedAt,
        attempts: spec.attempts ?? (status === "queued" ? 0 : 1),
        upstreamStatus: status === "forwarded" ? 201 : status === "failed" ? 400 : null,
        lastError: status === "failed" ? "upstream 400: seeded failure" : null,
        updatedAt: forwardedAt ?? createdAt,
      }),
    );
    for (let attempt = 1; attempt <= (spec.attempts ?? 0); attempt++) {
      batch.attempts.push({
        id: newId("att", spec.at),
        submissionId: id,
        attempt,
        counted: true,
        startedAt: createdAt,
        status: 201,
        latencyMs: 20,
      });
    }
    ids.push(id);
    // SQLite binds at most 32,766 values a statement: 500 rows of 36 columns stay well below.
    if (batch.rows.length >= 500) {
      yield batch;
      batch = { rows: [], attempts: [] };
    }
  }
  yield batch;
}
