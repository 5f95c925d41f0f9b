import { primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Leads the gateway forwarded, by the platform's lead id. `vendorKeyId` is the lead source that created the lead
 * (forwarding's `{status: "created", leadId}`; null when a submission only merged into a lead made elsewhere), so the
 * platform's quote.sent / quote.accepted / project.completed for that lead reach it and no other vendor (§1).
 * `contactSubmissionId` is the latest forwarded submission for the lead: a booking confirmation takes the visit's
 * name, address and phone from it.
 */
export const sourcedLeads = sqliteTable(
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
