import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { companies } from "./companies.js";

/** PostgreSQL twin of `../schema/owners.ts`. */
export const owners = pgTable(
  "owners",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: ["admin", "viewer"] }).notNull(),
    passwordHash: text("password_hash").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Sign-in looks an owner up by email.
    uniqueIndex("owners_email_uq").on(t.email),
  ],
);
