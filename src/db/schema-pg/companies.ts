import { json, pgTable, text } from "drizzle-orm/pg-core";

/** PostgreSQL twin of `../schema/companies.ts`. */
export const companies = pgTable("companies", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** Upstream limits "by arrangement" (§8), JSON `{perCredential?, perCompany?}` per minute; null = defaults. */
  limits: json("limits").$type<{ perCredential?: number; perCompany?: number }>(),
  createdAt: text("created_at").notNull(),
});
