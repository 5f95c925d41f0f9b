import { boolean, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { submissions } from "./submissions.js";

/** PostgreSQL twin of `../schema/submission-attempts.ts`. */
export const submissionAttempts = pgTable(
  "submission_attempts",
  {
    id: text("id").primaryKey(),
    submissionId: text("submission_id")
      .notNull()
      .references(() => submissions.id),
    attempt: integer("attempt").notNull(),
    counted: boolean("counted").notNull(),
    startedAt: text("started_at").notNull(),
    status: integer("status"),
    error: text("error"),
    latencyMs: integer("latency_ms").notNull(),
    upstreamRequestId: text("upstream_request_id"),
    upstreamApiVersion: text("upstream_api_version"),
    idempotencyKey: text("idempotency_key"),
  },
  (t) => [
    // The attempts timeline of one submission.
    index("submission_attempts_submission_idx").on(t.submissionId, t.attempt),
  ],
);
