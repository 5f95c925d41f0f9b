import type { upstreamCredentials } from "../../../db/schema/index.js";

/** An upstream credential as stored: its value sealed under the master key (§5.9: never shown again). */
export type UpstreamCredentialRow = typeof upstreamCredentials.$inferSelect;
export type NewUpstreamCredential = typeof upstreamCredentials.$inferInsert;

/** What rotating a credential changes. */
export type CredentialChange = Partial<
  Pick<UpstreamCredentialRow, "keyPrefix" | "sealed" | "version" | "status" | "pausedReason" | "rotatedAt">
>;
