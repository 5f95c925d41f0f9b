import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { apiKeys } from "./api-keys.js";
import { companies } from "./companies.js";
import { leads } from "./leads.js";
import { projects } from "./projects.js";

/**
 * §3.3: every accepted lead submission, kept as the lead's history ("submission recorded in the lead history").
 * A submission at a sold project's address names the project instead of a lead (the project is never touched).
 */
export const leadSubmissions = sqliteTable(
  "lead_submissions",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    leadId: text("lead_id").references(() => leads.id),
    projectId: text("project_id").references(() => projects.id),
    keyId: text("key_id").references(() => apiKeys.keyId),
    outcome: text("outcome", { enum: ["created", "merged", "sold_project"] }).notNull(),
    /** The validated §2.7 body as received. */
    body: text("body", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    receivedAt: text("received_at").notNull(),
  },
  (t) => [
    // Serves a lead's history in order (admin lead view, merge tests).
    index("lead_submissions_lead_idx").on(t.leadId, t.receivedAt),
  ],
);

export type LeadSubmissionRow = typeof leadSubmissions.$inferSelect;
