import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { reference } from "./reference.js";

/**
 * One of a company's general keys for the Inbound API (§4.2, §5). The value is encrypted at rest (AES-256-GCM under
 * the master key) and never returned by any API; only its first 14 characters are kept in clear (§5.9).
 */
export const upstreamCredentials = sqliteTable(
  "upstream_credentials",
  {
    id: text("id").primaryKey(),
    companyId: reference("company_id", () => companies.id),
    name: text("name").notNull(),
    keyPrefix: text("key_prefix").notNull(),
    /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
    sealed: text("sealed").notNull(),
    /** Increments on rotation; forwarding resumes paused submissions when it changes. */
    version: integer("version").notNull().default(1),
    /** `active`, or `paused` after the upstream answered 401/403 (the reason says which). */
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
