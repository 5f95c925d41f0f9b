import { index, pgTable, text } from "drizzle-orm/pg-core";

/** PostgreSQL twin of `../schema/mapping-failures.ts`. */
export const mappingFailures = pgTable(
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
