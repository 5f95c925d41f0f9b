import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";

/** §1, §4.2: a contractor record inside one company; an installer-contractor key is bound to exactly one. */
export const contractors = sqliteTable(
  "contractors",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
  },
  (t) => [
    // Serves the check that a contractor key's record belongs to the key's company (admin key creation).
    index("contractors_company_idx").on(t.companyId),
  ],
);

export type ContractorRow = typeof contractors.$inferSelect;
