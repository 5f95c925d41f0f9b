import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";

/**
 * §1 partner types a company records a partner under. The licensee is the company itself and an installer company is
 * a company of its own (`companies.kind`), so neither is a partner record; a contractor receives no events.
 */
export const PARTNER_RECORD_TYPES = [
  "lead_source",
  "booking_vendor",
  "distributor",
  "financing",
  "accounting",
] as const;
export type PartnerRecordType = (typeof PARTNER_RECORD_TYPES)[number];

/**
 * §1 "a partner type limits which webhook event groups it can subscribe to, and what data reaches it": the type
 * belongs to the partner, set once when the company records it, and every subscription made for the partner inherits
 * it (docs/decisions.md, "Sandbox event catalogue and partner types"). Keys issued to the partner name it
 * (`api_keys.partner_id`): they decide what it "sourced" or "booked".
 */
export const partners = sqliteTable(
  "partners",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
    type: text("type", { enum: PARTNER_RECORD_TYPES }).notNull(),
    /** §1 distributor: project.completed reaches it only where the company opted in. */
    completedProjectsOptIn: integer("completed_projects_opt_in", { mode: "boolean" }).notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Serves the owner's partner list and the check that a partner named in a subscription is the company's own.
    index("partners_company_idx").on(t.companyId, t.id),
  ],
);

export type PartnerRow = typeof partners.$inferSelect;
