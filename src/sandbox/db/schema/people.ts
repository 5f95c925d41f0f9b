import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";

/** §2.7: the people of a company; a general key names the one its leads are attributed to. */
export const people = sqliteTable(
  "people",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
    email: text("email").notNull(),
  },
  (t) => [
    // Serves the check that a key's attributed person belongs to the key's company (admin key creation).
    index("people_company_idx").on(t.companyId),
  ],
);

export type PersonRow = typeof people.$inferSelect;
