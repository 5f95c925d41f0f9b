import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { reference } from "./reference.js";

/** A named mapping profile of a company; its content lives in immutable versions. */
export const profiles = sqliteTable(
  "profiles",
  {
    id: text("id").primaryKey(),
    companyId: reference("company_id", () => companies.id),
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
