import { pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/** PostgreSQL twin of `../schema/sourced-leads.ts`. */
export const sourcedLeads = pgTable(
  "sourced_leads",
  {
    companyId: text("company_id").notNull(),
    leadId: text("lead_id").notNull(),
    vendorKeyId: text("vendor_key_id"),
    contactSubmissionId: text("contact_submission_id").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // Routing a platform sales event to the lead's source, and a booking confirmation's contact lookup.
    primaryKey({ columns: [t.companyId, t.leadId] }),
  ],
);
