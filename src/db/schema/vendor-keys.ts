import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { profileVersions } from "./profile-versions.js";
import { reference } from "./reference.js";
import { upstreamCredentials } from "./upstream-credentials.js";

export type PartnerType = "lead_source" | "booking_vendor";
export type VendorScope = "leads:write" | "appointments:write";

/**
 * A key the gateway issues to one vendor for one company (`svc_test_…`/`svc_live_…` `<keyId>.<secret>`, like §5.1).
 * The primary key is the public key id; the secret is stored as a SHA-256 digest. During a rotation the previous
 * digest stays valid until `previousValidUntil`.
 */
export const vendorKeys = sqliteTable(
  "vendor_keys",
  {
    id: text("id").primaryKey(),
    companyId: reference("company_id", () => companies.id),
    name: text("name").notNull(),
    partnerType: text("partner_type", { enum: ["lead_source", "booking_vendor"] }).notNull(),
    scopes: text("scopes", { mode: "json" }).$type<VendorScope[]>().notNull(),
    credentialId: reference("credential_id", () => upstreamCredentials.id),
    leadProfileVersionId: text("lead_profile_version_id").references(() => profileVersions.id),
    appointmentProfileVersionId: text("appointment_profile_version_id").references(() => profileVersions.id),
    /** `async`: 202 at once; `sync`: wait for the upstream's own answer (forwarding). */
    responseMode: text("response_mode", { enum: ["async", "sync"] })
      .notNull()
      .default("async"),
    secretDigest: text("secret_digest").notNull(),
    previousSecretDigest: text("previous_secret_digest"),
    previousValidUntil: text("previous_valid_until"),
    createdAt: text("created_at").notNull(),
    /**
     * When the owner put the key (or its hook connection) in capture mode (D-315): what the vendor sends is stored in
     * captured_payloads, never mapped or forwarded. Null: off, the key maps (or, without a profile, takes canonical
     * bodies) as always.
     */
    captureSince: text("capture_since"),
    revokedAt: text("revoked_at"),
  },
  (t) => [
    // Owner API lists a company's keys.
    index("vendor_keys_company_idx").on(t.companyId),
  ],
);
