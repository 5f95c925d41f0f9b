import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { owners } from "./owners.js";

/** Owner credentials for the owner API: browser sessions (cookie) and revocable bearer tokens (automation). */
export const ownerTokens = sqliteTable(
  "owner_tokens",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => owners.id),
    kind: text("kind", { enum: ["session", "token"] }).notNull(),
    name: text("name"),
    /** SHA-256 of the token: tokens are high-entropy, so a digest suffices and lookups stay indexable. */
    tokenDigest: text("token_digest").notNull(),
    /** CSRF token of a browser session (double-submit). */
    csrf: text("csrf"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [
    // Every owner request authenticates by digest.
    uniqueIndex("owner_tokens_digest_uq").on(t.tokenDigest),
    // Listing an owner's tokens.
    index("owner_tokens_owner_idx").on(t.ownerId),
  ],
);
