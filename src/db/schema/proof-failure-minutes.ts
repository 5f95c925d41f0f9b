import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { connections } from "./connections.js";
import { reference } from "./reference.js";

/**
 * A hook connection's refused proofs per minute (D-349): written with its running counter (`connections.proof_failures`)
 * by the same statement's transaction, so the alert evaluator counts a window from the database — after a restart, or
 * in another process, the same as in the one that counted them. Minutes older than the longest window an owner may set
 * (7 days) are deleted as new ones are written.
 */
export const proofFailureMinutes = sqliteTable(
  "proof_failure_minutes",
  {
    connectionId: reference("connection_id", () => connections.id),
    companyId: text("company_id").notNull(),
    /** The minute (epoch milliseconds / 60 000) the refusals fell in. */
    minute: integer("minute").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [
    // The flush's upsert (one row per connection and minute).
    primaryKey({ columns: [t.connectionId, t.minute] }),
    // The evaluator: a company's refusals since the start of its windows.
    index("proof_failure_minutes_company_idx").on(t.companyId, t.minute),
  ],
);
