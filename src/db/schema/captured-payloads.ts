import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./companies.js";
import { reference } from "./reference.js";
import { vendorKeys } from "./vendor-keys.js";

/**
 * What a vendor sent to a key or a hook connection in capture mode (docs/decisions.md D-315..D-317): stored exactly
 * as the profile would read it, never mapped, never forwarded, so the owner sees what arrives and starts a profile
 * from it. Bounded per key (D-316): the newest ones are kept, the oldest dropped as a new one arrives.
 */
export const capturedPayloads = sqliteTable(
  "captured_payloads",
  {
    id: text("id").primaryKey(),
    companyId: reference("company_id", () => companies.id),
    vendorKeyId: reference("vendor_key_id", () => vendorKeys.id),
    /** The hook connection it came through (null: the key's x-api-key intake). */
    connectionId: text("connection_id"),
    /** The intake path it came on (a key's), or the kind its connection maps. */
    kind: text("kind", { enum: ["lead", "appointment"] }).notNull(),
    /** The payload as JSON text: a key's body as received, a hook's body turned into its one JSON tree. */
    payload: text("payload").notNull(),
    /** Its size in bytes as received, shown to the owner. */
    bytes: integer("bytes").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    // A key's (its connection's) captures newest first, and the trim of the oldest past the bound on each insert.
    index("captured_payloads_key_id_idx").on(t.vendorKeyId, t.id),
    // Erasure by person and the retention purge walk a company's captures by id, a chunk at a time.
    index("captured_payloads_company_id_idx").on(t.companyId, t.id),
  ],
);
