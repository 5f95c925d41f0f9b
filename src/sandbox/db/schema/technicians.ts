import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";

/**
 * §2.6: an installer company's technician memberships. The id (`mem_…`) is the membershipId of an assignment (§2.5);
 * only an active membership can be assigned.
 */
export const technicians = sqliteTable(
  "technicians",
  {
    id: text("id").primaryKey(),
    installerCompanyId: text("installer_company_id")
      .notNull()
      .references(() => companies.id),
    displayName: text("display_name").notNull(),
    active: integer("active", { mode: "boolean" }).notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Serves the technician list of one installer company in id order (§2.6) and the §2.5 check that every assigned
    // id is one of the caller's own active memberships.
    index("technicians_company_idx").on(t.installerCompanyId, t.id),
  ],
);

export type TechnicianRow = typeof technicians.$inferSelect;
