import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";

/**
 * §4.3, §5.7: console endpoints need an owner session. The sandbox has one owner login per company: the company id
 * and a password (fixed, documented test passwords for seeded companies; a random one shown once for admin-made
 * ones). Only a SHA-256 digest is stored, like keys: test credentials, high-entropy when generated.
 */
export const ownerAccounts = sqliteTable("owner_accounts", {
  // Primary key: serves the login lookup by company id.
  companyId: text("company_id")
    .primaryKey()
    .references(() => companies.id),
  passwordDigest: text("password_digest").notNull(),
  createdAt: text("created_at").notNull(),
});

export type OwnerAccountRow = typeof ownerAccounts.$inferSelect;
