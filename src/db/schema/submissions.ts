import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { epochMs } from "./epoch-ms.js";
import { reference } from "./reference.js";
import { vendorKeys } from "./vendor-keys.js";

/**
 * One accepted vendor request: the raw payload as received, the canonical body the profile produced, the profile
 * version, and (with forwarding) its attempts and the upstream result. Committed before the vendor gets its answer.
 */
export const submissions = sqliteTable(
  "submissions",
  {
    id: text("id").primaryKey(),
    companyId: reference("company_id", () => companies.id),
    vendorKeyId: reference("vendor_key_id", () => vendorKeys.id),
    credentialId: text("credential_id").notNull(),
    kind: text("kind", { enum: ["lead", "appointment"] }).notNull(),
    /**
     * Forwarding's states, and a hook connection's (docs/connections.md): `held`, stored but not forwarded (the profile
     * cannot map it, or it lacks what the platform requires: `heldReason`), re-mapped after a fix; `fetching`, a
     * notified record still to be fetched from the vendor's API; `noted`, a change the Inbound API cannot express (a
     * reschedule, a cancellation) or a vendor's test lead in live mode, stored and shown, never forwarded (`note`).
     */
    status: text("status", {
      enum: ["queued", "waiting", "forwarding", "forwarded", "failed", "held", "fetching", "noted"],
    }).notNull(),
    /** The native payload exactly as received; null once purged by retention or erased. */
    rawPayload: text("raw_payload"),
    canonicalBody: text("canonical_body", { mode: "json" }).$type<Record<string, unknown>>(),
    profileVersionId: text("profile_version_id"),
    /** Vendor's idempotency key (a lead's Idempotency-Key header, an appointment's idempotencyKey). */
    idempotencyKey: text("idempotency_key"),
    /** SHA-256 of the native payload in canonical JSON: same key + same digest is a replay. Null without a key. */
    payloadDigest: text("payload_digest"),
    /** Sent upstream; derived per vendor key so two vendors' keys never collide at the platform (§8). */
    upstreamIdempotencyKey: text("upstream_idempotency_key"),
    /** Normalised contact fields, kept so an owner can erase a person's data (retention). */
    contactEmail: text("contact_email"),
    contactPhone: text("contact_phone"),
    attempts: integer("attempts").notNull().default(0),
    /** A worker holds the submission until this time (ms); after a crash the lease expires and work resumes. */
    leaseUntil: epochMs("lease_until"),
    /** Bumped by a redrive whose canonical body changed, deriving a new upstream idempotency key. */
    upstreamKeyGeneration: integer("upstream_key_generation").notNull().default(0),
    /** Earliest time (ms) of the first send, for latency figures. */
    firstSentAt: epochMs("first_sent_at"),
    forwardedAt: text("forwarded_at"),
    nextAttemptAt: epochMs("next_attempt_at"),
    waitingReason: text("waiting_reason"),
    lastError: text("last_error"),
    upstreamStatus: integer("upstream_status"),
    result: text("result", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    purgedAt: text("purged_at"),
    /**
     * When what the settled submission is owed (its vendor's webhook deliveries, the routing of later platform events)
     * was written, in its outcome's transaction. Null on a settled row: the start-up repair's (repair-settlements.ts).
     */
    settlementRecordedAt: text("settlement_recorded_at"),
    /** The hook connection it came through (null: a vendor key's x-api-key intake). */
    connectionId: text("connection_id"),
    /** Why a `held` submission is held, for the owner. */
    heldReason: text("held_reason"),
    /** What a `noted` submission is, for the owner (a reschedule the platform cannot express, a test lead). */
    note: text("note"),
    /** The vendor's own id of the record (a hook's), which its idempotency is derived from. */
    vendorRecordId: text("vendor_record_id"),
    /** A vendor's change to a booking (`reschedule`, `cancel`); null for a record to create. */
    recordAction: text("record_action", { enum: ["reschedule", "cancel"] }),
    /** A vendor's test record (its own marker): never forwarded to a live platform. */
    test: integer("test", { mode: "boolean" }).notNull().default(false),
    /** A `fetching` submission's notified record: the values its connection's fetch URL is filled with. */
    fetchTarget: text("fetch_target", { mode: "json" }).$type<Record<string, string>>(),
    /**
     * The W3C `traceparent` of the request that brought it (docs/tracing.md): its forwarding attempts and settlement,
     * in whatever process, are spans of that trace. Null with tracing off.
     */
    traceParent: text("trace_parent"),
    /**
     * The vendor's other details a profile put in `extras` (D-320): kept with the submission and shown to the owner,
     * never sent upstream (the canonical body has no such field), erased with the submission.
     */
    extras: text("extras", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [
    // Idempotent intake: one submission per vendor key and idempotency key. Partial: a lead without a key (most of
    // them) never conflicts, and need not cost its insert an index entry; `idempotency_key = ?` lookups still use it.
    uniqueIndex("submissions_key_idem_uq")
      .on(t.vendorKeyId, t.kind, t.idempotencyKey)
      .where(sql`idempotency_key IS NOT NULL`),
    // Owner log: a company's submissions newest first, keyset-paginated on id (ids are time-ordered).
    index("submissions_company_id_idx").on(t.companyId, t.id),
    // Owner log filtered by status, and the dead letter (status = failed).
    index("submissions_company_status_id_idx").on(t.companyId, t.status, t.id),
    // The live log's poll by every API process (D-235): a company's rows changed since a cursor (updated_at, id).
    index("submissions_company_updated_idx").on(t.companyId, t.updatedAt, t.id),
    // Dispatch: what is due now.
    index("submissions_status_next_idx").on(t.status, t.nextAttemptAt),
    // Start-up repair: settled submissions whose settlement was never recorded. Partial: a row is settled and marked
    // in one UPDATE, so no row of a running gateway enters it, and intake's inserts (queued) never touch it.
    index("submissions_settlement_owed_idx")
      .on(t.id)
      .where(sql`status IN ('forwarded', 'failed') AND settlement_recorded_at IS NULL`),
    // Owner log filtered by connection (and by status within it: its held payloads). Partial: a vendor key's intake
    // (no connection) never enters it.
    index("submissions_company_connection_id_idx")
      .on(t.companyId, t.connectionId, t.id)
      .where(sql`connection_id IS NOT NULL`),
    // Alerts (D-344): a vendor key's latest submissions — when it last sent and its usual interval, to tell a vendor
    // gone quiet — read as a short seek per key every evaluation, whatever else its company receives.
    index("submissions_vendor_key_id_idx").on(t.vendorKeyId, t.id),
    // Alerts (D-381): a company's submissions forwarded within a window, for forwarding's latency. Partial: intake's
    // inserts (not forwarded yet) never enter it; a send that forwards a row adds its one entry.
    index("submissions_company_forwarded_idx").on(t.companyId, t.forwardedAt).where(sql`forwarded_at IS NOT NULL`),
    // The owner's log found by a person's e-mail or phone (D-319), newest first within a company. Partial: an
    // appointment (no contact) costs its insert no entry. Each index costs every lead's insert: retention and erasure
    // have none (ranges of the time-ordered ids, a company's scan).
    index("submissions_company_email_id_idx")
      .on(t.companyId, t.contactEmail, t.id)
      .where(sql`contact_email IS NOT NULL`),
    index("submissions_company_phone_id_idx")
      .on(t.companyId, t.contactPhone, t.id)
      .where(sql`contact_phone IS NOT NULL`),
  ],
);
