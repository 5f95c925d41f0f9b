import { sql } from "kysely";
import { CompiledOnce } from "./compiled.js";
import { wholeMs } from "./numbers.js";
import type { AttemptOutcome, NewWebhookDelivery, NewWebhookEvent } from "./row.js";

/**
 * The statements of the delivery hot path — fan-out, the dispatcher's queue, recording attempts — compiled once per
 * dialect (compiled.ts): building a query costs more than running it at thousands of deliveries a second
 * (bench:fanout). store.ts runs them behind the port's named methods.
 */

/**
 * `status = 'pending'` with a literal, as the partial index webhook_deliveries_pending_subscription_next_idx is
 * declared: SQLite uses a partial index only when the query's terms imply its WHERE, and a bound parameter does not;
 * PostgreSQL's generic plan of a prepared statement cannot either.
 */
export const PENDING = sql<boolean>`${sql.ref("webhookDeliveries.status")} = 'pending'`;

/** Active subscriptions of a vendor key (fan-out; the caller checks the key is not revoked), on the (key, status) index. */
export const TARGETS = new CompiledOnce((s, vendorKeyId: string, companyId: string) =>
  s.db
    .selectFrom("webhookSubscriptions")
    .select(["id", "events", "createdAt"])
    .where("vendorKeyId", "=", vendorKeyId)
    .where("companyId", "=", companyId)
    .where("status", "=", "active"),
);

/** The values of one delivery row in an insert (deliveryValues gives them, deliveryRow binds them). */
const DELIVERY_FIELDS = 10;

/** Rows per insert: at most this many statements' shapes are compiled (one per row count), far below any limit. */
export const MAX_DELIVERIES_PER_INSERT = 50;

const insertsByCount = new Map<number, CompiledOnce<unknown[], { id: string }>>();

/**
 * `count` deliveries of one event in one statement, skipping those whose (dedupe key, subscription) is taken (the
 * unique index; a concurrent insert of the same key waits for the first transaction, then skips: D-244): the ids of
 * the new ones. Each row is DELIVERY_FIELDS values, flat.
 */
export function insertDeliveries(count: number): CompiledOnce<unknown[], { id: string }> {
  let statement = insertsByCount.get(count);
  if (!statement) {
    statement = new CompiledOnce(
      (s, ...values: unknown[]) =>
        s.db
          .insertInto("webhookDeliveries")
          .values(Array.from({ length: count }, (_, row) => deliveryRow(values, row * DELIVERY_FIELDS)))
          .onConflict((conflict) => conflict.doNothing())
          .returning("id"),
      count * DELIVERY_FIELDS,
    );
    insertsByCount.set(count, statement);
  }
  return statement;
}

/** One delivery's values for insertDeliveries, in deliveryRow's order. */
export function deliveryValues(event: NewWebhookEvent, d: NewWebhookDelivery): unknown[] {
  return [
    d.id,
    event.companyId,
    d.subscriptionId,
    event.id,
    event.event,
    d.dedupeKey,
    d.sourceEventId,
    wholeMs(d.nextAttemptAt),
    d.createdAt,
    wholeMs(d.createdAtMs),
  ];
}

/** One row of insertDeliveries from its placeholders (values of the compiled statement, never read as such). */
function deliveryRow(values: readonly unknown[], at: number) {
  return {
    id: values[at] as string,
    companyId: values[at + 1] as string,
    subscriptionId: values[at + 2] as string,
    eventId: values[at + 3] as string,
    event: values[at + 4] as string,
    dedupeKey: values[at + 5] as string,
    sourceEventId: values[at + 6] as string | null,
    status: "pending" as const,
    attempts: 0,
    retryIndex: 0,
    nextAttemptAt: values[at + 7] as number,
    createdAt: values[at + 8] as string,
    createdAtMs: values[at + 9] as number,
  };
}

/** The envelope, once per event whatever the number of its deliveries. */
export const INSERT_EVENT = new CompiledOnce(
  (s, id: string, companyId: string, event: string, envelope: string, createdAt: string) =>
    s.db.insertInto("webhookEvents").values({ id, companyId, event, envelope, createdAt }),
);

export const SUBSCRIPTION = new CompiledOnce((s, id: string) =>
  s.db.selectFrom("webhookSubscriptions").selectAll().where("id", "=", id),
);

/**
 * The head of a subscription's pending queue, oldest due first, on the partial pending index. Ties: SQLite's index
 * gives them in rowid (insertion) order, and a second term would sort a whole backlog made due at one time (a range
 * redelivered) in a temporary b-tree at every read; PostgreSQL has no insertion order, so it says id (creation) order.
 */
export const QUEUE_HEAD = new CompiledOnce((s, subscriptionId: string, limit: number) =>
  s.db
    .selectFrom("webhookDeliveries")
    .select(["id", "nextAttemptAt"])
    .where(PENDING)
    .where("subscriptionId", "=", subscriptionId)
    .orderBy("nextAttemptAt")
    .$if(s.dialect === "postgres", (q) => q.orderBy("id"))
    .limit(limit),
);

/** One delivery picked from the queue head, with its event's envelope (the head itself is read narrow). */
export const DELIVERY = new CompiledOnce((s, id: string) =>
  s.db
    .selectFrom("webhookDeliveries")
    .innerJoin("webhookEvents", "webhookEvents.id", "webhookDeliveries.eventId")
    .selectAll("webhookDeliveries")
    .select("webhookEvents.envelope")
    .where("webhookDeliveries.id", "=", id),
);

/**
 * An attempt, only if its delivery is still there (it goes with its subscription, possibly while in flight; the
 * batch of outcomes must still commit). On PostgreSQL the check locks the delivery, so no delete slips between it and
 * the update that follows in the same transaction (SQLite's single writer gives that).
 */
export const INSERT_ATTEMPT = new CompiledOnce(
  (
    s,
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
    s.db
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
        s.db
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
                .$if(s.dialect === "postgres", (q) => q.forUpdate()),
            ),
          ),
      ),
);

/** What the attempt leaves of its delivery; a body and its profile version, once set, are kept. */
export const UPDATE_DELIVERY = new CompiledOnce(
  (
    s,
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
    s.db
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
export const ENDPOINT_SUCCEEDED = new CompiledOnce((s, id: string) =>
  s.db
    .updateTable("webhookSubscriptions")
    .set({ consecutiveFailures: 0, failingSince: null, pausedUntil: null })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("consecutiveFailures", ">", 0), eb("pausedUntil", "is not", null)])),
);

/** One more failure (and a Retry-After's pause): the record after it. */
export const ENDPOINT_FAILED = new CompiledOnce((s, id: string, nowMs: number, pausedUntil: number | null) =>
  s.db
    .updateTable("webhookSubscriptions")
    .set((eb) => ({
      consecutiveFailures: eb("consecutiveFailures", "+", 1),
      failingSince: eb.fn.coalesce("failingSince", eb.val(nowMs)),
      pausedUntil: eb.fn.coalesce(eb.val(pausedUntil), "pausedUntil"),
    }))
    .where("id", "=", id)
    .returning(["consecutiveFailures", "failingSince", "status"]),
);
