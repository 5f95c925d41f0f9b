import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A request refused because its profile broke a guardrail (time, depth, size): the vendor got 422, and the owner
 * sees the payload that triggered it to fix the profile.
 */
export const mappingFailures = sqliteTable(
  "mapping_failures",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    vendorKeyId: text("vendor_key_id").notNull(),
    profileVersionId: text("profile_version_id").notNull(),
    message: text("message").notNull(),
    rawPayload: text("raw_payload"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Owner API lists a company's recent failures, newest first.
    index("mapping_failures_company_id_idx").on(t.companyId, t.id),
  ],
);
