import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { contractors } from "./contractors.js";
import { leads } from "./leads.js";

/**
 * Sold projects of a company (§3.3) — the same records a contractor pulls as its jobs (§2.9, §4.2: "sold projects
 * assigned to the contractor record"). Only sold projects exist in the sandbox; a lead becomes one by seeding.
 */
export const projects = sqliteTable(
  "projects",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    leadId: text("lead_id").references(() => leads.id),
    contractorId: text("contractor_id").references(() => contractors.id),
    workOrderNo: text("work_order_no").notNull(),
    address: text("address").notNull(),
    city: text("city").notNull(),
    state: text("state").notNull(),
    zip: text("zip").notNull(),
    /** The normalised full address (line, city, state, zip) a lead's address is compared with (§3.3). */
    addressKey: text("address_key").notNull(),
    stage: text("stage").notNull(),
    /** §4.2: installer notes, appended one per line as `[<timestamp>] <note>`. */
    installerNote: text("installer_note").notNull(),
    lastUpdated: text("last_updated").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Serves the §3.3 check "address belongs to a sold project" on every lead submission.
    index("projects_company_address_idx").on(t.companyId, t.addressKey),
    // Serves GET /api/inbound/jobs: one contractor record's jobs, newest change first (§4.2).
    index("projects_contractor_updated_idx").on(t.contractorId, t.lastUpdated, t.id),
  ],
);

export type ProjectRow = typeof projects.$inferSelect;
