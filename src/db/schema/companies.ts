import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A company (owner) that receives leads; every tenant-owned row carries its id. */
export const companies = sqliteTable("companies", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** Upstream limits "by arrangement" (§8), JSON `{perCredential?, perCompany?}` per minute; null = defaults. */
  limits: text("limits", { mode: "json" }).$type<{ perCredential?: number; perCompany?: number }>(),
  createdAt: text("created_at").notNull(),
});
