import type { connections, proofFailureMinutes } from "../../../db/schema/index.js";

/** A hook connection as stored: its token only as a digest, its vendor's secrets sealed. */
export type ConnectionRow = typeof connections.$inferSelect;
export type NewConnection = typeof connections.$inferInsert;

/** What may change of a connection after it is made. */
export type ConnectionChange = Partial<
  Pick<
    ConnectionRow,
    "name" | "settings" | "sealedSecrets" | "tokenDigest" | "previousTokenDigest" | "previousValidUntil" | "revokedAt"
  >
>;

/** A connection's refused proofs in one minute (D-349). */
export type ProofFailureMinute = Pick<typeof proofFailureMinutes.$inferSelect, "connectionId" | "minute" | "count">;
