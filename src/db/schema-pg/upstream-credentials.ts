import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { companies } from "./companies.js";

/** PostgreSQL twin of `../schema/upstream-credentials.ts`. */
export const upstreamCredentials = pgTable(
  "upstream_credentials",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
    keyPrefix: text("key_prefix").notNull(),
    /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts, sealed under MASTER_KEY. */
    sealed: text("sealed").notNull(),
    version: integer("version").notNull().default(1),
    status: text("status", { enum: ["active", "paused"] })
      .notNull()
      .default("active"),
    pausedReason: text("paused_reason"),
    createdAt: text("created_at").notNull(),
    rotatedAt: text("rotated_at"),
  },
  (t) => [
    // Owner API lists a company's credentials.
    index("upstream_credentials_company_idx").on(t.companyId),
  ],
);
