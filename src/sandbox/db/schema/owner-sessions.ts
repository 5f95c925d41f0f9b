import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";

/** §5.7: owner sessions of the console. The token is shown once; only its SHA-256 digest is stored. */
export const ownerSessions = sqliteTable(
  "owner_sessions",
  {
    // Primary key: serves the lookup of the session behind a presented token on every console request.
    tokenDigest: text("token_digest").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    /** Milliseconds since the epoch; a session past it is refused. */
    expiresAt: integer("expires_at").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // Serves dropping one company's sessions (reset, tests).
    index("owner_sessions_company_idx").on(t.companyId),
  ],
);

export type OwnerSessionRow = typeof ownerSessions.$inferSelect;
