import { and, eq, gt, lte } from "drizzle-orm";
import type { SandboxQuery } from "../../db/client.js";
import { type IdempotencyRecordRow, idempotencyRecords } from "../../db/schema/index.js";

/** Storage of Idempotency-Key records (§4.1 rule 3, §8). */

/** The owner's unexpired record under `key`, if any. */
export function findRecord(
  db: SandboxQuery,
  ownerId: string,
  key: string,
  nowMs: number,
): IdempotencyRecordRow | undefined {
  return db
    .select()
    .from(idempotencyRecords)
    .where(
      and(
        eq(idempotencyRecords.ownerId, ownerId),
        eq(idempotencyRecords.idempotencyKey, key),
        gt(idempotencyRecords.expiresAt, nowMs),
      ),
    )
    .get();
}

/** Stores an answer; an expired record under the same key is replaced. */
export function saveRecord(db: SandboxQuery, row: IdempotencyRecordRow): void {
  db.insert(idempotencyRecords)
    .values(row)
    .onConflictDoUpdate({ target: [idempotencyRecords.ownerId, idempotencyRecords.idempotencyKey], set: row })
    .run();
}

/** Drops every expired record; each write calls it, so the table holds at most one retention period of keys. */
export function dropExpiredRecords(db: SandboxQuery, nowMs: number): void {
  db.delete(idempotencyRecords).where(lte(idempotencyRecords.expiresAt, nowMs)).run();
}
