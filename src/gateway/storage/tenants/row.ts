import type { companies, owners, ownerTokens } from "../../../db/schema/index.js";

export type CompanyRow = typeof companies.$inferSelect;
export type OwnerRow = typeof owners.$inferSelect;
/** A session (cookie) or a bearer token of an owner: only its digest is stored. */
export type OwnerTokenRow = typeof ownerTokens.$inferSelect;
export type NewOwnerToken = typeof ownerTokens.$inferInsert;
