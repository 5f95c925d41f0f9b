import { and, desc, eq, gte, inArray, lt, lte, min, ne, sql } from "drizzle-orm";
import {
  webhookAttempts,
  webhookDeliveries,
  webhookEvents,
  webhookSubscriptions,
} from "../../../../db/schema-pg/index.js";
import { idFloor } from "../../../../ids.js";
import { type PgHandles, type PgQueryable, pgTransaction } from "../../pg-handles.js";
import type { WebhookDeliveryRow, WebhookDeliveryStatus } from "../deliveries.js";
import type { DeliveryStore, WebhookAttemptRow } from "../port.js";

/** `status = 'pending'` with a literal, as the partial index webhook_deliveries_pending_subscription_next_idx is declared. */
const PENDING = sql`${webhookDeliveries.status} = 'pending'`;

/**
 * Webhook events, their deliveries and the deliveries' attempts beyond the hot path, on PostgreSQL (as
 * ../deliveries.ts): the owner's delivery log and redelivery, the dispatcher's start and backlog, an erasure's
 * redaction, disabling a failing endpoint.
 */
export class PostgresDeliveryStore implements DeliveryStore {
  readonly #handles: PgHandles;

  constructor(handles: PgHandles) {
    this.#handles = handles;
  }

  /** A subscription's deliveries of one status, newest first, `limit` of them below `before`. */
  async pageOf(
    subscriptionId: string,
    status: WebhookDeliveryStatus,
    before: string | undefined,
    limit: number,
  ): Promise<WebhookDeliveryRow[]> {
    return this.#handles.db
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.subscriptionId, subscriptionId),
          eq(webhookDeliveries.status, status),
          before ? lt(webhookDeliveries.id, before) : undefined,
        ),
      )
      .orderBy(desc(webhookDeliveries.id))
      .limit(limit);
  }

  async getOfCompany(id: string, companyId: string): Promise<WebhookDeliveryRow | undefined> {
    const [row] = await this.#handles.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.companyId, companyId)));
    return row;
  }

  async envelopeOf(eventId: string): Promise<string | undefined> {
    const [row] = await this.#handles.db
      .select({ envelope: webhookEvents.envelope })
      .from(webhookEvents)
      .where(eq(webhookEvents.id, eventId));
    return row?.envelope;
  }

  async attemptsOf(deliveryRowId: string): Promise<WebhookAttemptRow[]> {
    return this.#handles.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryRowId, deliveryRowId))
      .orderBy(webhookAttempts.attempt);
  }

  async update(id: string, change: Partial<WebhookDeliveryRow>): Promise<void> {
    await this.#handles.db.update(webhookDeliveries).set(change).where(eq(webhookDeliveries.id, id));
  }

  /** As SQLite's: never a pending one; the time range as an id range on the (subscription, status, id) index. */
  async resetRange(
    subscriptionId: string,
    statuses: WebhookDeliveryStatus[],
    from: Date,
    to: Date,
    change: Partial<WebhookDeliveryRow>,
  ): Promise<number> {
    const result = await this.#handles.db
      .update(webhookDeliveries)
      .set(change)
      .where(
        and(
          eq(webhookDeliveries.subscriptionId, subscriptionId),
          inArray(webhookDeliveries.status, statuses),
          ne(webhookDeliveries.status, "pending"),
          gte(webhookDeliveries.id, idFloor("whd", from.getTime())),
          lt(webhookDeliveries.id, idFloor("whd", to.getTime() + 1)),
          gte(webhookDeliveries.createdAt, from.toISOString()),
          lte(webhookDeliveries.createdAt, to.toISOString()),
        ),
      );
    return result.rowCount ?? 0;
  }

  /** At a dispatcher's start: `delivering` rows (a previous process's) are pending again. */
  async resumeDelivering(): Promise<void> {
    await this.#handles.db
      .update(webhookDeliveries)
      .set({ status: "pending" })
      .where(
        and(
          inArray(
            webhookDeliveries.subscriptionId,
            this.#handles.db.select({ id: webhookSubscriptions.id }).from(webhookSubscriptions),
          ),
          eq(webhookDeliveries.status, "delivering"),
        ),
      );
  }

  /** The earliest due time of every subscription with pending work (on the partial pending index). */
  async backlog(): Promise<{ subscriptionId: string; due: number | null }[]> {
    return this.#handles.db
      .select({ subscriptionId: webhookDeliveries.subscriptionId, due: min(webhookDeliveries.nextAttemptAt) })
      .from(webhookDeliveries)
      .where(PENDING)
      .groupBy(webhookDeliveries.subscriptionId);
  }

  async disableSubscription(subscriptionId: string, reason: string, nowIso: string): Promise<void> {
    await this.#handles.db
      .update(webhookSubscriptions)
      .set({ status: "disabled", disabledReason: reason, disabledAt: nowIso, updatedAt: nowIso })
      .where(and(eq(webhookSubscriptions.id, subscriptionId), eq(webhookSubscriptions.status, "active")));
  }

  /**
   * An erasure's step, as SQLite's, in one transaction with the rows locked while they are rewritten. The deliveries
   * are found by dedupe key prefix: on the (dedupe_key, subscription) index as a key range when the database orders
   * text bytewise, else by `^@` (starts_with) over the company's rows — in a linguistic collation the keys starting
   * with a prefix are not one range (D-246).
   */
  async eraseDeliveries(
    companyId: string,
    prefixes: readonly string[],
    redact: (envelope: string) => string | undefined,
  ): Promise<{ webhookEvents: number; pendingDeliveries: number }> {
    if (prefixes.length === 0) return { webhookEvents: 0, pendingDeliveries: 0 };
    return pgTransaction(this.#handles, async ({ client }) => {
      const found = (await orderedBytewise(client))
        ? await client.query<{ id: string; eventId: string; status: string }>(
            // `:` + 1 is `;`: the range of every key that starts with the prefix.
            `SELECT d.id, d.event_id AS "eventId", d.status
             FROM unnest($2::text[], $3::text[]) AS p(low, high)
             JOIN webhook_deliveries d ON d.dedupe_key >= p.low AND d.dedupe_key < p.high
             WHERE d.company_id = $1 AND d.dedupe_key ^@ p.low ORDER BY d.id FOR UPDATE OF d`,
            [companyId, prefixes, prefixes.map((p) => `${p.slice(0, -1)};`)],
          )
        : await client.query<{ id: string; eventId: string; status: string }>(
            `SELECT id, event_id AS "eventId", status FROM webhook_deliveries
             WHERE company_id = $1 AND dedupe_key ^@ ANY($2::text[]) ORDER BY id FOR UPDATE`,
            [companyId, prefixes],
          );
      const deliveryIds = found.rows.map((d) => d.id);
      const pendingDeliveries = found.rows.filter((d) => d.status === "pending" || d.status === "delivering").length;
      if (deliveryIds.length === 0) return { webhookEvents: 0, pendingDeliveries };
      await client.query(
        "UPDATE webhook_deliveries SET body = NULL, profile_version_id = NULL WHERE id = ANY($1::text[])",
        [deliveryIds],
      );
      await client.query(
        "UPDATE webhook_attempts SET response_excerpt = NULL WHERE delivery_row_id = ANY($1::text[])",
        [deliveryIds],
      );
      const eventIds = [...new Set(found.rows.map((d) => d.eventId))];
      const events = await client.query<{ id: string; envelope: string }>(
        "SELECT id, envelope FROM webhook_events WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE",
        [eventIds],
      );
      const ids: string[] = [];
      const envelopes: string[] = [];
      for (const event of events.rows) {
        const redacted = redact(event.envelope);
        if (redacted === undefined) continue;
        ids.push(event.id);
        envelopes.push(redacted);
      }
      if (ids.length > 0) {
        await client.query(
          `UPDATE webhook_events e SET envelope = u.envelope FROM unnest($1::text[], $2::text[]) AS u(id, envelope)
           WHERE e.id = u.id`,
          [ids, envelopes],
        );
      }
      return { webhookEvents: ids.length, pendingDeliveries };
    });
  }
}

/**
 * Whether the database's default collation orders text by bytes (C, POSIX, C.UTF-8 of libc), as SQLite's BINARY
 * does. `datlocprovider` exists from PostgreSQL 15 on (read through jsonb so older servers answer too: libc).
 */
async function orderedBytewise(client: PgQueryable): Promise<boolean> {
  const { rows } = await client.query<{ collate: string; provider: string | null }>(
    `SELECT datcollate AS collate, to_jsonb(d) ->> 'datlocprovider' AS provider FROM pg_database d
     WHERE datname = current_database()`,
  );
  const row = rows[0];
  if (!row || (row.provider !== null && row.provider !== "c")) return false;
  return /^(C|POSIX)(\..*)?$/i.test(row.collate);
}
