import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { vendorKeys } from "./vendor-keys.js";

/**
 * A hook connection (DESIGN.md, "Vendors as they really send"; docs/connections.md): how a vendor that can only be
 * given a URL reaches the gateway. It owns one vendor key — the key carries what every submission needs (the upstream
 * credential, the bound profile, the webhooks back to the vendor, the scope of idempotency) — and adds the hook URL's
 * token, the vendor's own proof, body type and answer, and optionally a fetch of the notified record. The token is a
 * credential: only its SHA-256 digest is stored, the URL is shown once (and again on rotation).
 */
export const connections = sqliteTable(
  "connections",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    vendorKeyId: text("vendor_key_id")
      .notNull()
      .references(() => vendorKeys.id),
    name: text("name").notNull(),
    /** The preset it was made from (presets/<id>/), whose declarations it uses; null: its own, in `settings`. */
    preset: text("preset"),
    /** The connection's own declarations (bodyType, proof, handshake, answer, fetch): null with a preset. */
    settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>(),
    /** Which kind the hook maps with: the key's bound lead or appointment profile version. */
    profileKind: text("profile_kind", { enum: ["lead", "appointment"] }).notNull(),
    /** The vendor's secrets (`{name: value}` as JSON), sealed under the master key and bound to this row's id. */
    sealedSecrets: text("sealed_secrets").notNull(),
    /** Where the preset's fetches go instead of the vendor's API (sandbox mode only: tests and demos). */
    vendorApiBase: text("vendor_api_base"),
    tokenDigest: text("token_digest").notNull(),
    /** The token before the last rotation, valid until `previousValidUntil` (the overlap). */
    previousTokenDigest: text("previous_token_digest"),
    previousValidUntil: text("previous_valid_until"),
    /** Requests refused for their proof, counted for the owner (never their content). */
    proofFailures: integer("proof_failures").notNull().default(0),
    lastProofFailureAt: text("last_proof_failure_at"),
    lastProofFailure: text("last_proof_failure"),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [
    // The hook route finds a connection by its token's digest, current or previous (a rotation's overlap).
    uniqueIndex("connections_token_digest_uq").on(t.tokenDigest),
    index("connections_previous_token_digest_idx")
      .on(t.previousTokenDigest)
      .where(sql`previous_token_digest IS NOT NULL`),
    // Owner API lists a company's connections; one connection per vendor key.
    index("connections_company_idx").on(t.companyId),
    uniqueIndex("connections_vendor_key_uq").on(t.vendorKeyId),
  ],
);
