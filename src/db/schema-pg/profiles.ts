import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { companies } from "./companies.js";

/** PostgreSQL twin of `../schema/profiles.ts`. */
export const profiles = pgTable(
  "profiles",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["lead", "appointment", "outbound"] }).notNull(),
    description: text("description"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Names are unique per company (config files refer to profiles by name); also serves the list query.
    uniqueIndex("profiles_company_name_uq").on(t.companyId, t.name),
    index("profiles_company_idx").on(t.companyId),
  ],
);
