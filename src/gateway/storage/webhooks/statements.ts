import { sql } from "kysely";
import { CompiledOnce, type On, pick } from "../sql/compiled.js";
import { columnsOf } from "../sql/values.js";
import type { NewWebhookDelivery, NewWebhookEvent, WebhookEventRow } from "./row.js";

/** The statements of the delivery hot path (fan-out, the dispatcher's queue), compiled once per dialect (D-275). */

/**
 * An epoch-millisecond time as written: a whole number. A Retry-After may be fractional seconds (`1.0005`, so
 * 1,000.5 ms), which PostgreSQL's bigint refuses and SQLite would keep as a REAL; both store it rounded.
 */
export function wholeMs<T extends number | null>(ms: T): T {
  return (ms === null ? ms : Math.round(ms)) as T;
}

/**
 * `status = 'pending'` with a literal, as the partial index webhook_deliveries_pending_subscription_next_idx is
 * declared: a bound parameter does not imply its WHERE (for SQLite, nor for a generic plan on PostgreSQL).
 */
export const PENDING = sql<boolean>`${sql.ref("webhookDeliveries.status")} = 'pending'`;

/** A vendor key's active subscriptions (fan-out: the caller checks the key), on the (key, status) index. */
export const TARGETS = new CompiledOnce((on, args: { vendorKeyId: string; companyId: string }) =>
  on.db
    .selectFrom("webhookSubscriptions")
    .select(["id", "events", "createdAt"])
    .where("vendorKeyId", "=", args.vendorKeyId)
    .where("companyId", "=", args.companyId)
    .where("status", "=", "active"),
);

/** The values of one delivery row in an insert (deliveryValues gives them, deliveryRow binds them). */
const DELIVERY_FIELDS = 10;

/** Rows per insert on PostgreSQL: at most this many statements' shapes are compiled (one per row count). */
const MAX_DELIVERIES_PER_INSERT = 50;

/** One delivery, skipped when its (dedupe key, subscription) is taken. */
const INSERT_DELIVERY = new CompiledOnce((on, values: unknown[]) =>
  on.db
    .insertInto("webhookDeliveries")
    .values(deliveryRow(values, 0))
    .onConflict((conflict) => conflict.doNothing()),
);

const insertsByCount = new Map<number, CompiledOnce<unknown[], { id: string }>>();

/** `count` deliveries in one statement, skipping those whose (dedupe key, subscription) is taken: the new ones' ids. */
function insertMany(count: number): CompiledOnce<unknown[], { id: string }> {
  let statement = insertsByCount.get(count);
  if (!statement) {
    statement = new CompiledOnce((on, values: unknown[]) =>
      on.db
        .insertInto("webhookDeliveries")
        .values(Array.from({ length: count }, (_, row) => deliveryRow(values, row * DELIVERY_FIELDS)))
        .onConflict((conflict) => conflict.doNothing())
        .returning("id"),
    );
    insertsByCount.set(count, statement);
  }
  return statement;
}

/**
 * An event's deliveries in the order given, those whose (dedupe key, subscription) is taken skipped (D-244): the new
 * ones' ids. SQLite: a statement per delivery (ten cost 300 µs of CPU, one statement for ten 550); PostgreSQL: one.
 */
export async function insertDeliveryRows(
  on: On,
  event: NewWebhookEvent,
  deliveries: readonly NewWebhookDelivery[],
): Promise<Set<string>> {
  const inserted = new Set<string>();
  if (on.dialect === "sqlite") {
    for (const d of deliveries) {
      const { numAffectedRows } = await INSERT_DELIVERY.run(on, deliveryValues(event, d));
      if ((numAffectedRows ?? 0n) > 0n) inserted.add(d.id);
    }
    return inserted;
  }
  for (let from = 0; from < deliveries.length; from += MAX_DELIVERIES_PER_INSERT) {
    const chunk = deliveries.slice(from, from + MAX_DELIVERIES_PER_INSERT);
    const values = chunk.flatMap((d) => deliveryValues(event, d));
    for (const row of (await insertMany(chunk.length).run(on, values)).rows) inserted.add(row.id);
  }
  return inserted;
}

/** One delivery's values for an insert, in deliveryRow's order. */
function deliveryValues(event: NewWebhookEvent, d: NewWebhookDelivery): unknown[] {
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

/** One row of an insert from its placeholders (values of the compiled statement, never read as such). */
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
export const INSERT_EVENT = new CompiledOnce((on, row: WebhookEventRow) =>
  on.db.insertInto("webhookEvents").values(pick(row, columnsOf("webhookEvents"))),
);

export const SUBSCRIPTION = new CompiledOnce((on, args: { id: string }) =>
  on.db.selectFrom("webhookSubscriptions").selectAll().where("id", "=", args.id),
);

/**
 * The head of a subscription's pending queue, oldest due first, on the partial pending index. Ties: in SQLite's index
 * order (insertion; a second term would sort a redelivered backlog at every read), by id on PostgreSQL.
 */
export const QUEUE_HEAD = new CompiledOnce((on, args: { subscriptionId: string; limit: number }) =>
  on.db
    .selectFrom("webhookDeliveries")
    .select(["id", "nextAttemptAt"])
    .where(PENDING)
    .where("subscriptionId", "=", args.subscriptionId)
    .orderBy("nextAttemptAt")
    .$if(on.dialect === "postgres", (q) => q.orderBy("id"))
    .limit(args.limit),
);

/** One delivery picked from the (narrow) queue head, with its event's envelope and the trace its attempts join. */
export const DELIVERY = new CompiledOnce((on, args: { id: string }) =>
  on.db
    .selectFrom("webhookDeliveries")
    .innerJoin("webhookEvents", "webhookEvents.id", "webhookDeliveries.eventId")
    .selectAll("webhookDeliveries")
    .select(["webhookEvents.envelope", "webhookEvents.traceParent"])
    .where("webhookDeliveries.id", "=", args.id),
);
