import type { ReplayStore } from "../../../contract/replay-store.js";
import { compactAfterErasure } from "../sql/compaction.js";
import type { On } from "../sql/compiled.js";
import type { StoreSql } from "../sql/store-sql.js";
import { SqlDeliveryStore } from "./deliveries.js";
import { wholeMs, wholeMsOrNull } from "./numbers.js";
import { ENDPOINT_FAILED, ENDPOINT_SUCCEEDED, recordAttemptOn } from "./outcomes.js";
import { SqlPlatformEventStore } from "./platform-events.js";
import type { WebhookStore } from "./port.js";
import { purgePlatformDeliveries, SqlReplayStore } from "./replay-store.js";
import { purgeWebhookHistory } from "./retention.js";
import { SqlEventRoutingStore } from "./routing.js";
import type {
  AttemptOutcome,
  DeliveryToSend,
  EndpointFailures,
  NewWebhookAttempt,
  NewWebhookDelivery,
  NewWebhookEvent,
  PurgedWebhookHistory,
  QueuedDelivery,
  WebhookSubscriptionRow,
  WebhookTarget,
} from "./row.js";
import { DELIVERY, INSERT_EVENT, insertDeliveryRows, QUEUE_HEAD, SUBSCRIPTION, TARGETS } from "./statements.js";
import { SqlSubscriptionStore } from "./subscriptions.js";

/**
 * The webhooks record, once for SQLite and PostgreSQL (D-275): vendors' subscriptions, the events and deliveries made
 * for them with their attempts, the platform events received (their secrets, the §6.6 replay store), what routes those
 * to vendors (sourced leads, booked appointments), and the retention purge of its tables. The delivery hot path
 * (fan-out, the dispatcher's queue, recording attempts) runs statements compiled once (statements.ts) behind the named
 * methods of port.ts; the rest are methods of the sub-stores. Construction does no I/O, so a transaction builds its
 * own store. What differs by dialect is small and named where it is: the fan-out's rows per statement and the queue
 * head's tie order (statements.ts), the lock an attempt takes (outcomes.ts), the latest contact (routing.ts), the
 * erasure's key search (erasure.ts), the purge of finished events (retention.ts), the row locks of multi-statement
 * work (`FOR UPDATE`, PostgreSQL only) and the compaction after an erasure (sql/compaction.ts).
 */
export class SqlWebhookStore implements WebhookStore {
  readonly #sql: StoreSql;
  readonly platformEvents: SqlPlatformEventStore;
  readonly routing: SqlEventRoutingStore;
  readonly subscriptions: SqlSubscriptionStore;
  readonly deliveries: SqlDeliveryStore;

  constructor(sql: StoreSql) {
    this.#sql = sql;
    this.platformEvents = new SqlPlatformEventStore(sql);
    this.routing = new SqlEventRoutingStore(sql);
    this.subscriptions = new SqlSubscriptionStore(sql);
    this.deliveries = new SqlDeliveryStore(sql);
  }

  async targets(vendorKeyId: string, companyId: string): Promise<WebhookTarget[]> {
    return (await TARGETS.run(this.#sql, { vendorKeyId, companyId })).rows;
  }

  /**
   * An event's deliveries (statements.ts), then its envelope only if one of them is new: both in one transaction (the
   * caller's, or one of their own), so no delivery is ever without its envelope (D-244).
   */
  async insertDeliveries(event: NewWebhookEvent, deliveries: readonly NewWebhookDelivery[]): Promise<string[]> {
    if (deliveries.length === 0) return [];
    // One order for every writer, so two transactions inserting overlapping keys wait on each other, never deadlock.
    const sorted = [...deliveries].sort(
      (a, b) => compare(a.dedupeKey, b.dedupeKey) || compare(a.subscriptionId, b.subscriptionId),
    );
    const inserted = await this.#sql.atomically(async (db) => {
      const on: On = { db, dialect: this.#sql.dialect };
      const ids = await insertDeliveryRows(on, event, sorted);
      // Stored once for all its deliveries; not at all (nor made) when every delivery was already there (a repeated hook).
      if (ids.size > 0) {
        const { id, companyId, createdAt } = event;
        await INSERT_EVENT.run(on, { id, companyId, event: event.event, envelope: event.envelope(), createdAt });
      }
      return ids;
    });
    return deliveries.filter((d) => inserted.has(d.id)).map((d) => d.id);
  }

  async subscription(id: string): Promise<WebhookSubscriptionRow | undefined> {
    return (await SUBSCRIPTION.run(this.#sql, { id })).rows[0];
  }

  async queueHead(subscriptionId: string, limit: number): Promise<QueuedDelivery[]> {
    return (await QUEUE_HEAD.run(this.#sql, { subscriptionId, limit })).rows;
  }

  async delivery(id: string): Promise<DeliveryToSend | undefined> {
    return (await DELIVERY.run(this.#sql, { id })).rows[0];
  }

  /** The attempt and the outcome it leaves, together (inline in the dispatcher's group commit). */
  async recordAttempt(attempt: NewWebhookAttempt, outcome: AttemptOutcome): Promise<void> {
    await this.#sql.atomically((db) => recordAttemptOn({ db, dialect: this.#sql.dialect }, attempt, outcome));
  }

  async endpointSucceeded(subscriptionId: string): Promise<void> {
    await ENDPOINT_SUCCEEDED.run(this.#sql, { id: subscriptionId });
  }

  async endpointFailed(
    subscriptionId: string,
    nowMs: number,
    pausedUntil: number | null,
  ): Promise<EndpointFailures | undefined> {
    const failure = { id: subscriptionId, nowMs: wholeMs(nowMs), pausedUntil: wholeMsOrNull(pausedUntil) };
    return (await ENDPOINT_FAILED.run(this.#sql, failure)).rows[0];
  }

  replayStore(companyId: string): ReplayStore {
    return new SqlReplayStore(this.#sql, companyId);
  }

  purgePlatformDeliveries(nowSeconds: number): Promise<number> {
    return purgePlatformDeliveries(this.#sql, nowSeconds);
  }

  purgeHistory(cutoffMs: number, companyIds: readonly string[]): Promise<PurgedWebhookHistory> {
    return purgeWebhookHistory(this.#sql, cutoffMs, companyIds);
  }

  /**
   * What an erasure rewrote or deleted here, gone from every page: on PostgreSQL a VACUUM of these tables; on SQLite
   * nothing of its own (`secure_delete` zeroes what a statement overwrites, and the submissions store's truncating
   * checkpoint empties the WAL of the whole file, these tables' pages included: D-257).
   */
  compactAfterErasure(): Promise<boolean> {
    const tables = ["webhook_events", "webhook_deliveries", "webhook_attempts", "platform_events"];
    return compactAfterErasure(this.#sql, tables, "nothing");
  }
}

/** Code-unit order, as the unique index orders in a bytewise collation (any fixed order avoids the deadlock). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
