import { sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { reference } from "./reference.js";

/** An owner account of a company: `admin` (keys, credentials, publishing) or `viewer` (read-only). */
export const owners = sqliteTable(
  "owners",
  {
    id: text("id").primaryKey(),
    companyId: reference("company_id", () => companies.id),
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: ["admin", "viewer"] }).notNull(),
    /** scrypt hash (`scrypt$N$r$p$salt$hash`): passwords are low-entropy, unlike API secrets. */
    passwordHash: text("password_hash").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Sign-in looks an owner up by email.
    uniqueIndex("owners_email_uq").on(t.email),
  ],
);
