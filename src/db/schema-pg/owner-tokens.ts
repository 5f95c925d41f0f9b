import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { owners } from "./owners.js";

/** PostgreSQL twin of `../schema/owner-tokens.ts`. */
export const ownerTokens = pgTable(
  "owner_tokens",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => owners.id),
    kind: text("kind", { enum: ["session", "token"] }).notNull(),
    name: text("name"),
    tokenDigest: text("token_digest").notNull(),
    csrf: text("csrf"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at"),
    revokedAt: text("revoked_at"),
    lastUsedAt: text("last_used_at"),
  },
  (t) => [
    // Every owner request authenticates by digest.
    uniqueIndex("owner_tokens_digest_uq").on(t.tokenDigest),
    // Listing an owner's tokens.
    index("owner_tokens_owner_idx").on(t.ownerId),
  ],
);
