import { and, asc, eq, getTableColumns, sql } from "drizzle-orm";
import type { GatewayDb } from "../../../db/client.js";
import { webhookDeliveries, webhookEvents, webhookSubscriptions } from "../../../db/schema/index.js";
import type { SqliteDatabase } from "../../../db/sqlite.js";

/**
 * The statements of the delivery hot path, prepared once per database: building a query costs more than running
 * it at thousands of deliveries a second (bench:fanout). Writes use plain SQL with positional parameters.
 */
/**
 * `status = 'pending'` with a literal, as the partial index webhook_deliveries_pending_subscription_next_idx is
 * declared: SQLite uses a partial index only when the query's terms imply its WHERE, and a bound parameter does not.
 */
export const PENDING = sql`${webhookDeliveries.status} = 'pending'`;

/** Prepared once per store (store.ts), behind the webhooks store's named hot-path methods. */
export function prepareWebhookStatements({ db, sqlite }: { db: GatewayDb; sqlite: SqliteDatabase }) {
  return {
    /** Active subscriptions of a vendor key (fan-out; the caller checks the key is not revoked). */
    targets: db
      .select({
        id: webhookSubscriptions.id,
        events: webhookSubscriptions.events,
        createdAt: webhookSubscriptions.createdAt,
      })
      .from(webhookSubscriptions)
      .where(
        and(
          eq(webhookSubscriptions.vendorKeyId, sql.placeholder("vendorKeyId")),
          eq(webhookSubscriptions.companyId, sql.placeholder("companyId")),
          eq(webhookSubscriptions.status, "active"),
        ),
      )
      .prepare(),
    insertDelivery: sqlite.prepare(
      `INSERT INTO webhook_deliveries (id, company_id, subscription_id, event_id, event, dedupe_key, source_event_id,
         status, attempts, retry_index, next_attempt_at, created_at, created_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, 0, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
    /** The envelope, once per event whatever the number of its deliveries. */
    insertEvent: sqlite.prepare(
      "INSERT INTO webhook_events (id, company_id, event, envelope, created_at) VALUES (?, ?, ?, ?, ?)",
    ),
    subscription: db
      .select()
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.id, sql.placeholder("id")))
      .prepare(),
    /** The head of a subscription's pending queue, oldest due first (the partial pending index). */
    queueHead: db
      .select({ id: webhookDeliveries.id, nextAttemptAt: webhookDeliveries.nextAttemptAt })
      .from(webhookDeliveries)
      .where(and(PENDING, eq(webhookDeliveries.subscriptionId, sql.placeholder("id"))))
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(sql.placeholder("limit"))
      .prepare(),
    /** One delivery picked from the queue head, with its event's envelope (the head itself is read narrow). */
    delivery: db
      .select({ ...getTableColumns(webhookDeliveries), envelope: webhookEvents.envelope })
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .where(eq(webhookDeliveries.id, sql.placeholder("id")))
      .prepare(),
    /** Nothing when the delivery went with its subscription while in flight (the batch must still commit). */
    insertAttempt: sqlite.prepare(
      `INSERT INTO webhook_attempts (id, delivery_row_id, attempt, delivery_id, secret_version, started_at, status, error,
         response_excerpt, latency_ms)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = ?)`,
    ),
    updateDelivery: sqlite.prepare(
      `UPDATE webhook_deliveries SET status = ?, attempts = ?, last_status = ?, last_error = ?,
         body = coalesce(body, ?), profile_version_id = coalesce(profile_version_id, ?), retry_index = ?,
         next_attempt_at = ?, delivered_at = ?, failed_at = ? WHERE id = ?`,
    ),
    endpointSucceeded: sqlite.prepare(
      `UPDATE webhook_subscriptions SET consecutive_failures = 0, failing_since = NULL, paused_until = NULL
       WHERE id = ? AND (consecutive_failures > 0 OR paused_until IS NOT NULL)`,
    ),
    endpointFailed: sqlite.prepare(
      `UPDATE webhook_subscriptions SET consecutive_failures = consecutive_failures + 1,
         failing_since = coalesce(failing_since, ?), paused_until = coalesce(?, paused_until)
       WHERE id = ? RETURNING consecutive_failures AS consecutiveFailures, failing_since AS failingSince, status`,
    ),
  };
}

/** @internal The webhooks' own statements, left out of the published declarations (drizzle's prepared-query types name better-sqlite3 types a declaration cannot). */
export type WebhookStatements = ReturnType<typeof prepareWebhookStatements>;
