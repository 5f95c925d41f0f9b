import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { owners } from "./owners.js";
import { reference } from "./reference.js";

/** Owner credentials for the owner API: browser sessions (cookie) and revocable bearer tokens (automation). */
export const ownerTokens = sqliteTable(
  "owner_tokens",
  {
    id: text("id").primaryKey(),
    ownerId: reference("owner_id", () => owners.id),
    kind: text("kind", { enum: ["session", "token"] }).notNull(),
    name: text("name"),
    /** SHA-256 of the token: tokens are high-entropy, so a digest suffices and lookups stay indexable. */
    tokenDigest: text("token_digest").notNull(),
    /** CSRF token of a browser session (double-submit). */
    csrf: text("csrf"),
    createdAt: text("created_at").notNull(),
    /** A session's absolute end (12 h), or a token's optional expiry. */
    expiresAt: text("expires_at"),
    revokedAt: text("revoked_at"),
    /**
     * When it last authenticated a request, to the minute: a session idle longer than the idle timeout has ended, and
     * an owner listing tokens sees which are still used. Null: not since it was made.
     */
    lastUsedAt: text("last_used_at"),
  },
  (t) => [
    // Every owner request authenticates by digest.
    uniqueIndex("owner_tokens_digest_uq").on(t.tokenDigest),
    // Listing an owner's tokens.
    index("owner_tokens_owner_idx").on(t.ownerId),
  ],
);
