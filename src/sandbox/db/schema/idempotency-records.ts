import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Idempotency-Key records of the Installer API (§4.1 rule 3, §8), scoped to the key owner: the operation and body a
 * key was first used with, and the answer given, replayed byte for byte. Kept until `expiresAt`
 * (docs/decisions.md); 5xx and 429 answers are never stored.
 */
export const idempotencyRecords = sqliteTable(
  "idempotency_records",
  {
    ownerId: text("owner_id").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    /** `METHOD /path` as requested, e.g. `POST /api/partner/v1/jobs/job_…/status-events`. */
    operation: text("operation").notNull(),
    /** SHA-256 of the body's canonical JSON: key order and whitespace do not make another body. */
    requestDigest: text("request_digest").notNull(),
    responseStatus: integer("response_status").notNull(),
    responseBody: text("response_body").notNull(),
    createdAt: text("created_at").notNull(),
    /** Milliseconds since the epoch. */
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [
    // Primary key: serves the lookup of (owner, key) on every write, and makes two records under one key impossible.
    primaryKey({ columns: [t.ownerId, t.idempotencyKey] }),
    // Serves dropping expired records.
    index("idempotency_records_expiry_idx").on(t.expiresAt),
  ],
);

export type IdempotencyRecordRow = typeof idempotencyRecords.$inferSelect;
