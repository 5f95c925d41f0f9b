import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { reference } from "./reference.js";
import { submissions } from "./submissions.js";

/**
 * One call to the upstream for a submission (§7): when, what came back, how long it took, the upstream's request id
 * (for support requests) and API version (§9.6).
 */
export const submissionAttempts = sqliteTable(
  "submission_attempts",
  {
    id: text("id").primaryKey(),
    submissionId: reference("submission_id", () => submissions.id),
    /** 1-based; a 429 answer does not consume an attempt and is recorded with `counted = false`. */
    attempt: integer("attempt").notNull(),
    counted: integer("counted", { mode: "boolean" }).notNull(),
    startedAt: text("started_at").notNull(),
    /** HTTP status, or null for a network error or timeout. */
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
