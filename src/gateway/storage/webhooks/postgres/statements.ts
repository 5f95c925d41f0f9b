import type pg from "pg";
import type { PgQueryable } from "../../pg-handles.js";

/**
 * The webhooks' raw statements on PostgreSQL: the delivery hot path (fan-out, the dispatcher's queue, its outcomes)
 * runs them as named prepared statements (each connection parses and plans one once; D-243), with the rows read as
 * the SQLite store's: camelCase keys, epoch-millisecond `bigint` columns as numbers (`::float8`: node-postgres reads
 * int8 as a string), `events` parsed from its json column.
 */
export interface Statement {
  name: string;
  text: string;
}

/** Runs `statement` on `client` (the pool, or a transaction's client) as a named prepared statement. */
export function run<R extends pg.QueryResultRow = pg.QueryResultRow>(
  client: PgQueryable,
  statement: Statement,
  values: unknown[],
): Promise<pg.QueryResult<R>> {
  return (client as pg.Pool).query<R>({ name: statement.name, text: statement.text, values });
}

/** A subscription row (`WebhookSubscriptionRow`). */
export const SUBSCRIPTION_COLUMNS = `id, company_id AS "companyId", vendor_key_id AS "vendorKeyId", url, events,
  sealed_secrets AS "sealedSecrets", outbound_profile_version_id AS "outboundProfileVersionId", status,
  disabled_reason AS "disabledReason", disabled_at AS "disabledAt", consecutive_failures AS "consecutiveFailures",
  failing_since::float8 AS "failingSince", paused_until::float8 AS "pausedUntil", created_at AS "createdAt",
  updated_at AS "updatedAt"`;

/** A delivery row (`WebhookDeliveryRow`), of the table aliased `d`. */
export const DELIVERY_COLUMNS = `d.id, d.company_id AS "companyId", d.subscription_id AS "subscriptionId",
  d.event_id AS "eventId", d.event, d.dedupe_key AS "dedupeKey", d.source_event_id AS "sourceEventId", d.body,
  d.profile_version_id AS "profileVersionId", d.status, d.attempts, d.retry_index AS "retryIndex",
  d.next_attempt_at::float8 AS "nextAttemptAt", d.last_status AS "lastStatus", d.last_error AS "lastError",
  d.created_at AS "createdAt", d.created_at_ms::float8 AS "createdAtMs", d.delivered_at AS "deliveredAt",
  d.failed_at AS "failedAt"`;

export const STATEMENTS = {
  /** Active subscriptions of a vendor key (fan-out), on webhook_subscriptions_key_status_idx. */
  targets: {
    name: "webhooks_targets",
    text: `SELECT id, events, created_at AS "createdAt" FROM webhook_subscriptions
      WHERE vendor_key_id = $1 AND company_id = $2 AND status = 'active'`,
  },
  /**
   * An event's deliveries in one statement (arrays unnested; the SQLite store loops), skipping those whose
   * (dedupe key, subscription) is taken, and its envelope only when one is new: one statement, so the two commit
   * together even outside a transaction. Concurrent inserts of one key wait on the unique index for the first
   * transaction's end, then skip (D-244).
   */
  insertDeliveries: {
    name: "webhooks_insert_deliveries",
    text: `WITH inserted AS (
        INSERT INTO webhook_deliveries (id, company_id, subscription_id, event_id, event, dedupe_key, source_event_id,
          status, attempts, retry_index, next_attempt_at, created_at, created_at_ms)
        SELECT d.id, $1, d.subscription_id, $2, $3, d.dedupe_key, d.source_event_id, 'pending', 0, 0,
          d.next_attempt_at::bigint, d.created_at, d.created_at_ms::bigint
        FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::float8[], $9::text[], $10::float8[])
          AS d(id, subscription_id, dedupe_key, source_event_id, next_attempt_at, created_at, created_at_ms)
        ON CONFLICT DO NOTHING
        RETURNING id
      ), event AS (
        INSERT INTO webhook_events (id, company_id, event, envelope, created_at)
        SELECT $2::text, $1::text, $3::text, $11::text, $12::text WHERE EXISTS (SELECT 1 FROM inserted)
      )
      SELECT id FROM inserted`,
  },
  subscription: {
    name: "webhooks_subscription",
    text: `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE id = $1`,
  },
  /**
   * The head of a subscription's pending queue, oldest due first, on the partial pending index (`status = 'pending'`
   * literally, so the generic plan of the prepared statement can use it); ties in id (creation) order.
   */
  queueHead: {
    name: "webhooks_queue_head",
    text: `SELECT id, next_attempt_at::float8 AS "nextAttemptAt" FROM webhook_deliveries
      WHERE status = 'pending' AND subscription_id = $1 ORDER BY next_attempt_at, id LIMIT $2`,
  },
  delivery: {
    name: "webhooks_delivery",
    text: `SELECT ${DELIVERY_COLUMNS}, e.envelope FROM webhook_deliveries d
      JOIN webhook_events e ON e.id = d.event_id WHERE d.id = $1`,
  },
  /**
   * An attempt and its delivery's outcome in one statement. The delivery is locked first: when it went with its
   * subscription (a cascade) nothing is written, and a delete cannot slip between the check and the attempt's insert
   * (SQLite's single writer gave that for free).
   */
  recordAttempt: {
    name: "webhooks_record_attempt",
    text: `WITH target AS (
        SELECT id FROM webhook_deliveries WHERE id = $2 FOR UPDATE
      ), attempt AS (
        INSERT INTO webhook_attempts (id, delivery_row_id, attempt, delivery_id, secret_version, started_at, status,
          error, response_excerpt, latency_ms)
        SELECT $1::text, target.id, $3::integer, $4::text, $5::integer, $6::text, $7::integer, $8::text, $9::text,
          $10::integer FROM target
      )
      UPDATE webhook_deliveries SET status = $11, attempts = $12, last_status = $13, last_error = $14,
        body = coalesce(body, $15), profile_version_id = coalesce(profile_version_id, $16), retry_index = $17,
        next_attempt_at = $18::float8::bigint, delivered_at = $19, failed_at = $20
      WHERE id IN (SELECT id FROM target)`,
  },
  endpointSucceeded: {
    name: "webhooks_endpoint_succeeded",
    text: `UPDATE webhook_subscriptions SET consecutive_failures = 0, failing_since = NULL, paused_until = NULL
      WHERE id = $1 AND (consecutive_failures > 0 OR paused_until IS NOT NULL)`,
  },
  endpointFailed: {
    name: "webhooks_endpoint_failed",
    text: `UPDATE webhook_subscriptions SET consecutive_failures = consecutive_failures + 1,
        failing_since = coalesce(failing_since, $1::float8::bigint), paused_until = coalesce($2::float8::bigint, paused_until)
      WHERE id = $3
      RETURNING consecutive_failures AS "consecutiveFailures", failing_since::float8 AS "failingSince", status`,
  },
  /** §6.3.2: atomic across processes — the primary key decides, and the row count tells (D-245). */
  rememberDelivery: {
    name: "webhooks_remember_delivery",
    text: `INSERT INTO platform_deliveries (company_id, delivery_id, keep_until) VALUES ($1, $2, $3::float8::bigint)
      ON CONFLICT DO NOTHING`,
  },
  isEventProcessed: {
    name: "webhooks_event_processed",
    text: "SELECT 1 FROM platform_events WHERE company_id = $1 AND id = $2",
  },
  /**
   * Lead → source and latest contact submission (runs for every forwarded lead): as SQLite's, with GREATEST in
   * bytewise order (`COLLATE "C"`, SQLite's BINARY) whatever the database's collation (D-246).
   */
  rememberLead: {
    name: "webhooks_remember_lead",
    text: `INSERT INTO sourced_leads (company_id, lead_id, vendor_key_id, contact_submission_id, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $5)
      ON CONFLICT (company_id, lead_id) DO UPDATE SET
        contact_submission_id = GREATEST(sourced_leads.contact_submission_id COLLATE "C", excluded.contact_submission_id),
        updated_at = excluded.updated_at, vendor_key_id = coalesce(sourced_leads.vendor_key_id, excluded.vendor_key_id)`,
  },
} satisfies Record<string, Statement>;
