import type { GatewayDb } from "../../src/db/client.js";
import { submissionAttempts, submissions } from "../../src/db/schema/index.js";
import type { StorageHandles } from "../../src/gateway/storage/open-storage.js";
import { type SubmissionRow, submissionRow } from "../../src/gateway/storage/submissions/index.js";
import { newId } from "../../src/ids.js";
import { sqliteOf } from "./sqlite-of.js";

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
}

/**
 * Writes submissions straight into the database in one transaction through the submission-row builder: fast enough
 * for 100,000 rows, and the rows are what intake and forwarding would have written.
 */
export function seedSubmissions(gateway: { database: StorageHandles }, specs: Iterable<SeedSpec>): string[] {
  const ids: string[] = [];
  const rows: SubmissionRow[] = [];
  const attempts: (typeof submissionAttempts.$inferInsert)[] = [];
  // Multi-row inserts of a few hundred rows each: SQLite's bound-parameter limit, and far less per-statement cost.
  const flush = (tx: Pick<GatewayDb, "insert">) => {
    if (rows.length) tx.insert(submissions).values(rows.splice(0)).run();
    if (attempts.length) tx.insert(submissionAttempts).values(attempts.splice(0)).run();
  };
  sqliteOf(gateway).db.transaction((tx) => {
    for (const spec of specs) {
      const id = newId("sub", spec.at);
      const createdAt = new Date(spec.at).toISOString();
      const status = spec.status ?? "forwarded";
      const forwardedAt = status === "forwarded" ? new Date(spec.at + (spec.latencyMs ?? 150)).toISOString() : null;
      const row = submissionRow({
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
        forwardedAt,
        attempts: spec.attempts ?? (status === "queued" ? 0 : 1),
        upstreamStatus: status === "forwarded" ? 201 : status === "failed" ? 400 : null,
        lastError: status === "failed" ? "upstream 400: seeded failure" : null,
        updatedAt: forwardedAt ?? createdAt,
      });
      rows.push(row);
      for (let attempt = 1; attempt <= (spec.attempts ?? 0); attempt++) {
        attempts.push({
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
      if (rows.length >= 500) flush(tx);
    }
    flush(tx);
  });
  return ids;
}
