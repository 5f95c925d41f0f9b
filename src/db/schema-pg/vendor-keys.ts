import { index, json, pgTable, text } from "drizzle-orm/pg-core";
import type { VendorScope } from "../schema/vendor-keys.js";
import { companies } from "./companies.js";
import { profileVersions } from "./profile-versions.js";
import { upstreamCredentials } from "./upstream-credentials.js";

/** PostgreSQL twin of `../schema/vendor-keys.ts`. */
export const vendorKeys = pgTable(
  "vendor_keys",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
    partnerType: text("partner_type", { enum: ["lead_source", "booking_vendor"] }).notNull(),
    scopes: json("scopes").$type<VendorScope[]>().notNull(),
    credentialId: text("credential_id")
      .notNull()
      .references(() => upstreamCredentials.id),
    leadProfileVersionId: text("lead_profile_version_id").references(() => profileVersions.id),
    appointmentProfileVersionId: text("appointment_profile_version_id").references(() => profileVersions.id),
    responseMode: text("response_mode", { enum: ["async", "sync"] })
      .notNull()
      .default("async"),
    secretDigest: text("secret_digest").notNull(),
    previousSecretDigest: text("previous_secret_digest"),
    previousValidUntil: text("previous_valid_until"),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [
    // Owner API lists a company's keys.
    index("vendor_keys_company_idx").on(t.companyId),
  ],
);
