import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { apiKeys } from "./api-keys.js";
import { companies } from "./companies.js";
import { people } from "./people.js";

/**
 * §2.7 leads. `addressKey` is the normalised address used for de-duplication within the company (§3.3; rules in
 * docs/decisions.md). Only an `open` lead takes merges.
 */
export const leads = sqliteTable(
  "leads",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    /** §2.7: attributed to the person set on the key that created the lead. */
    personId: text("person_id").references(() => people.id),
    keyId: text("key_id").references(() => apiKeys.keyId),
    fullName: text("full_name").notNull(),
    email: text("email").notNull(),
    phone: text("phone").notNull(),
    address: text("address").notNull(),
    addressKey: text("address_key").notNull(),
    /** §2.7: null until a submission carries it; a merge without it keeps the stored value. */
    smsConsent: integer("sms_consent", { mode: "boolean" }),
    status: text("status", { enum: ["open", "closed"] }).notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // Serves the §3.3 lookup "open lead at the same normalised address within the company", and guarantees there is
    // never more than one such lead.
    uniqueIndex("leads_open_address_idx").on(t.companyId, t.addressKey).where(sql`status = 'open'`),
    // Serves the per-company lead counts of the admin stats.
    index("leads_company_idx").on(t.companyId),
  ],
);

export type LeadRow = typeof leads.$inferSelect;
