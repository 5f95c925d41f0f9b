import { sql } from "kysely";
import { CompiledOnce, type On } from "./compiled.js";
import { wholeMs } from "./numbers.js";
import type { AttemptOutcome, NewWebhookAttempt } from "./row.js";

/**
 * The statements of a delivery attempt's outcome (the dispatcher's group commit runs them for every attempt),
 * compiled once per dialect like the rest of the hot path (statements.ts).
 */

/**
 * An attempt, only if its delivery is still there (it goes with its subscription, possibly while in flight; the
 * batch of outcomes must still commit). On PostgreSQL the check locks the delivery, so no delete slips between it and
 * the update that follows in the same transaction (SQLite's single writer gives that).
 */
const INSERT_ATTEMPT = new CompiledOnce(
  (
    on,
    id: string,
    deliveryRowId: string,
    attempt: number,
    deliveryId: string,
    secretVersion: number | null,
    startedAt: string,
    status: number | null,
    error: string | null,
    responseExcerpt: string | null,
    latencyMs: number,
  ) =>
    on.db
      .insertInto("webhookAttempts")
      .columns([
        "id",
        "deliveryRowId",
        "attempt",
        "deliveryId",
        "secretVersion",
        "startedAt",
        "status",
        "error",
        "responseExcerpt",
        "latencyMs",
      ])
      .expression(
        // Typed by casts: PostgreSQL reads a bare parameter of a select list as text.
        on.db
          .selectNoFrom((eb) => [
            eb.cast<string>(eb.val(id), "text").as("id"),
            eb.cast<string>(eb.val(deliveryRowId), "text").as("deliveryRowId"),
            eb.cast<number>(eb.val(attempt), "integer").as("attempt"),
            eb.cast<string>(eb.val(deliveryId), "text").as("deliveryId"),
            eb.cast<number | null>(eb.val(secretVersion), "integer").as("secretVersion"),
            eb.cast<string>(eb.val(startedAt), "text").as("startedAt"),
            eb.cast<number | null>(eb.val(status), "integer").as("status"),
            eb.cast<string | null>(eb.val(error), "text").as("error"),
            eb.cast<string | null>(eb.val(responseExcerpt), "text").as("responseExcerpt"),
            eb.cast<number>(eb.val(latencyMs), "integer").as("latencyMs"),
          ])
          .where((eb) =>
            eb.exists(
              eb
                .selectFrom("webhookDeliveries")
                .select(sql.lit(1).as("one"))
                .where("id", "=", deliveryRowId)
                .$if(on.dialect === "postgres", (q) => q.forUpdate()),
            ),
          ),
      ),
);

/** What the attempt leaves of its delivery; a body and its profile version, once set, are kept. */
const UPDATE_DELIVERY = new CompiledOnce(
  (
    on,
    id: string,
    status: AttemptOutcome["status"],
    attempts: number,
    lastStatus: number | null,
    lastError: string | null,
    body: string | null,
    profileVersionId: string | null,
    retryIndex: number,
    nextAttemptAt: number,
    deliveredAt: string | null,
    failedAt: string | null,
  ) =>
    on.db
      .updateTable("webhookDeliveries")
      .set((eb) => ({
        status,
        attempts,
        lastStatus,
        lastError,
        body: eb.fn.coalesce("body", eb.val(body)),
        profileVersionId: eb.fn.coalesce("profileVersionId", eb.val(profileVersionId)),
        retryIndex,
        nextAttemptAt,
        deliveredAt,
        failedAt,
      }))
      .where("id", "=", id),
);

/** Clears an endpoint's failure record; writes nothing (no page) when there is none, the usual case. */
export const ENDPOINT_SUCCEEDED = new CompiledOnce((on, id: string) =>
  on.db
    .updateTable("webhookSubscriptions")
    .set({ consecutiveFailures: 0, failingSince: null, pausedUntil: null })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("consecutiveFailures", ">", 0), eb("pausedUntil", "is not", null)])),
);

/** One more failure (and a Retry-After's pause): the record after it. */
export const ENDPOINT_FAILED = new CompiledOnce((on, id: string, nowMs: number, pausedUntil: number | null) =>
  on.db
    .updateTable("webhookSubscriptions")
    .set((eb) => ({
      consecutiveFailures: eb("consecutiveFailures", "+", 1),
      failingSince: eb.fn.coalesce("failingSince", eb.val(nowMs)),
      pausedUntil: eb.fn.coalesce(eb.val(pausedUntil), "pausedUntil"),
    }))
    .where("id", "=", id)
    .returning(["consecutiveFailures", "failingSince", "status"]),
);

/**
 * An attempt and what it leaves of its delivery, on `on`: a transaction's (the store runs it inside one, so the lock
 * the insert takes on PostgreSQL holds until the update).
 */
export async function recordAttemptOn(on: On, attempt: NewWebhookAttempt, outcome: AttemptOutcome): Promise<void> {
  await INSERT_ATTEMPT.execute(
    on,
    attempt.id,
    attempt.deliveryRowId,
    attempt.attempt,
    attempt.deliveryId,
    attempt.secretVersion,
    attempt.startedAt,
    attempt.status,
    attempt.error,
    attempt.responseExcerpt,
    attempt.latencyMs,
  );
  await UPDATE_DELIVERY.execute(
    on,
    attempt.deliveryRowId,
    outcome.status,
    outcome.attempts,
    outcome.lastStatus,
    outcome.lastError,
    outcome.body,
    outcome.profileVersionId,
    outcome.retryIndex,
    wholeMs(outcome.nextAttemptAt),
    outcome.deliveredAt,
    outcome.failedAt,
  );
}
