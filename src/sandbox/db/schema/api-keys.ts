import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { contractors } from "./contractors.js";
import { partners } from "./partners.js";
import { people } from "./people.js";

export const KEY_KINDS = ["general", "installer-contractor", "installer-company"] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/** §5.4: every scope a key can carry. */
export const SCOPES = [
  "leads:write",
  "appointments:write",
  "jobs:read",
  "jobs:status:write",
  "jobs:schedule:write",
  "technicians:read",
  "jobs:assignment:write",
] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * §5: API keys. The key id is the public half and the primary key; only a SHA-256 digest of the secret is stored
 * (the secret is high-entropy, so a password hash would add nothing). `companyId` is the owner of §5.5.
 */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    keyId: text("key_id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
    kind: text("kind", { enum: KEY_KINDS }).notNull(),
    scopes: text("scopes", { mode: "json" }).$type<Scope[]>().notNull(),
    secretDigest: text("secret_digest").notNull(),
    /** §2.7: the person the company chose for a general key; its leads are attributed to them. */
    personId: text("person_id").references(() => people.id),
    /** §4.2: the contractor record an installer-contractor key is bound to. */
    contractorId: text("contractor_id").references(() => contractors.id),
    /** §1: the partner the company issued the key to; what the key creates is what that partner sourced or booked. */
    partnerId: text("partner_id").references(() => partners.id),
    revokedAt: text("revoked_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Serves the admin listing of one owner's keys (stats, benchmarks creating credentials per company).
    index("api_keys_company_idx").on(t.companyId),
    // Serves "the keys of one partner" (event routing of lead sources and booking vendors, §1).
    index("api_keys_partner_idx").on(t.partnerId),
  ],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;
