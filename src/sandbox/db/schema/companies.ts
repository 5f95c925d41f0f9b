import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * §5.5: keys belong to an owner — a company (general and installer-contractor keys) or an installer company
 * (installer-company keys). Both are rows here, told apart by `kind`; ids carry the spec's `org_` prefix (§2.1).
 */
export const companies = sqliteTable("companies", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  kind: text("kind", { enum: ["company", "installer_company"] }).notNull(),
  createdAt: text("created_at").notNull(),
});

export type CompanyRow = typeof companies.$inferSelect;
