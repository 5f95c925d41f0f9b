import { sql } from "kysely";
import { CompiledOnce, type On } from "../sql/compiled.js";
import { columnsOf, pgTypeOf } from "../sql/values.js";
import type { AttemptOutcome, NewWebhookAttempt } from "./row.js";
import { wholeMs } from "./statements.js";

// The statements of a delivery attempt's outcome, compiled once per dialect like the rest of the hot path.

/**
 * An attempt, only if its delivery is still there (it goes with its subscription, possibly in flight, and the batch
 * must still commit). On PostgreSQL the check locks the delivery until the update that follows.
 */
const ATTEMPT_COLUMNS = columnsOf("webhookAttempts");
const INSERT_ATTEMPT = new CompiledOnce((on, attempt: NewWebhookAttempt) =>
  on.db
    .insertInto("webhookAttempts")
    .columns(ATTEMPT_COLUMNS)
    .expression(
      // Each value cast to its column's type: PostgreSQL reads a bare parameter of a select list as text.
      on.db
        .selectNoFrom((eb) =>
          ATTEMPT_COLUMNS.map((c) => eb.cast(eb.val(attempt[c]), sql.raw(pgTypeOf("webhookAttempts", c))).as(c)),
        )
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom("webhookDeliveries")
              .select(sql.lit(1).as("one"))
              .where("id", "=", attempt.deliveryRowId)
              .$if(on.dialect === "postgres", (q) => q.forUpdate()),
          ),
        ),
    ),
);

/** What the attempt leaves of its delivery; a body and its profile version, once set, are kept. */
const UPDATE_DELIVERY = new CompiledOnce((on, outcome: AttemptOutcome & { id: string }) =>
  on.db
    .updateTable("webhookDeliveries")
    .set((eb) => ({
      status: outcome.status,
      attempts: outcome.attempts,
      lastStatus: outcome.lastStatus,
      lastError: outcome.lastError,
      body: eb.fn.coalesce("body", eb.val(outcome.body)),
      profileVersionId: eb.fn.coalesce("profileVersionId", eb.val(outcome.profileVersionId)),
      retryIndex: outcome.retryIndex,
      nextAttemptAt: outcome.nextAttemptAt,
      deliveredAt: outcome.deliveredAt,
      failedAt: outcome.failedAt,
    }))
    .where("id", "=", outcome.id),
);

/** Clears an endpoint's failure record; writes nothing (no page) when there is none, the usual case. */
export const ENDPOINT_SUCCEEDED = new CompiledOnce((on, args: { id: string }) =>
  on.db
    .updateTable("webhookSubscriptions")
    .set({ consecutiveFailures: 0, failingSince: null, pausedUntil: null })
    .where("id", "=", args.id)
    .where((eb) => eb.or([eb("consecutiveFailures", ">", 0), eb("pausedUntil", "is not", null)])),
);

/** One more failure (and a Retry-After's pause): the record after it. */
export const ENDPOINT_FAILED = new CompiledOnce((on, args: { id: string; nowMs: number; pausedUntil: number | null }) =>
  on.db
    .updateTable("webhookSubscriptions")
    .set((eb) => ({
      consecutiveFailures: eb("consecutiveFailures", "+", 1),
      failingSince: eb.fn.coalesce("failingSince", eb.val(args.nowMs)),
      pausedUntil: eb.fn.coalesce(eb.val(args.pausedUntil), "pausedUntil"),
    }))
    .where("id", "=", args.id)
    .returning(["consecutiveFailures", "failingSince", "status"]),
);

/** An attempt and its delivery's outcome, in a transaction: on PostgreSQL the insert's lock holds till the update. */
export async function recordAttemptOn(on: On, attempt: NewWebhookAttempt, outcome: AttemptOutcome): Promise<void> {
  await INSERT_ATTEMPT.run(on, attempt);
  await UPDATE_DELIVERY.run(on, {
    ...outcome,
    id: attempt.deliveryRowId,
    nextAttemptAt: wholeMs(outcome.nextAttemptAt),
  });
}
