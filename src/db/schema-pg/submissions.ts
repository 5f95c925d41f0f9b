import { sql } from "drizzle-orm";
import { bigint, index, integer, json, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { companies } from "./companies.js";
import { vendorKeys } from "./vendor-keys.js";

/**
 * PostgreSQL twin of `../schema/submissions.ts` (the comments there say what each column and index is for).
 * Epoch-millisecond columns are `bigint` read as numbers.
 */
export const submissions = pgTable(
  "submissions",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    vendorKeyId: text("vendor_key_id")
      .notNull()
      .references(() => vendorKeys.id),
    credentialId: text("credential_id").notNull(),
    kind: text("kind", { enum: ["lead", "appointment"] }).notNull(),
    status: text("status", { enum: ["queued", "waiting", "forwarding", "forwarded", "failed"] }).notNull(),
    rawPayload: text("raw_payload"),
    canonicalBody: json("canonical_body").$type<Record<string, unknown>>(),
    profileVersionId: text("profile_version_id"),
    idempotencyKey: text("idempotency_key"),
    payloadDigest: text("payload_digest"),
    upstreamIdempotencyKey: text("upstream_idempotency_key"),
    contactEmail: text("contact_email"),
    contactPhone: text("contact_phone"),
    attempts: integer("attempts").notNull().default(0),
    leaseUntil: bigint("lease_until", { mode: "number" }),
    upstreamKeyGeneration: integer("upstream_key_generation").notNull().default(0),
    firstSentAt: bigint("first_sent_at", { mode: "number" }),
    forwardedAt: text("forwarded_at"),
    nextAttemptAt: bigint("next_attempt_at", { mode: "number" }),
    waitingReason: text("waiting_reason"),
    lastError: text("last_error"),
    upstreamStatus: integer("upstream_status"),
    result: json("result").$type<Record<string, unknown>>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    purgedAt: text("purged_at"),
    settlementRecordedAt: text("settlement_recorded_at"),
  },
  (t) => [
    // Idempotent intake. Partial: an INSERT … ON CONFLICT on it must repeat the predicate
    // (`ON CONFLICT (vendor_key_id, kind, idempotency_key) WHERE idempotency_key IS NOT NULL`).
    uniqueIndex("submissions_key_idem_uq")
      .on(t.vendorKeyId, t.kind, t.idempotencyKey)
      .where(sql`idempotency_key IS NOT NULL`),
    // Owner log: a company's submissions newest first, keyset-paginated on id (ids are time-ordered).
    index("submissions_company_id_idx").on(t.companyId, t.id),
    // Owner log filtered by status, and the dead letter (status = failed).
    index("submissions_company_status_id_idx").on(t.companyId, t.status, t.id),
    // The live log's poll: a company's rows changed since a cursor (updated_at, id).
    index("submissions_company_updated_idx").on(t.companyId, t.updatedAt, t.id),
    // Dispatch: what is due now.
    index("submissions_status_next_idx").on(t.status, t.nextAttemptAt),
    // Start-up repair: settled submissions whose settlement was never recorded.
    index("submissions_settlement_owed_idx")
      .on(t.id)
      .where(sql`status IN ('forwarded', 'failed') AND settlement_recorded_at IS NULL`),
  ],
);
