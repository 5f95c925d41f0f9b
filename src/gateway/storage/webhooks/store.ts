import { compactAfterErasure } from "../sql/compaction.js";
import { byCodeUnits, type StoreSql } from "../sql/store-sql.js";
import { sqlDeliveryStore } from "./deliveries.js";
import { ENDPOINT_FAILED, ENDPOINT_SUCCEEDED, recordAttemptOn } from "./outcomes.js";
import { sqlPlatformEventStore } from "./platform-events.js";
import { purgePlatformDeliveries, sqlReplayStore } from "./replay-store.js";
import { purgeWebhookHistory } from "./retention.js";
import { sqlEventRoutingStore } from "./routing.js";
import type { AttemptOutcome, NewWebhookAttempt, NewWebhookDelivery, NewWebhookEvent } from "./row.js";
import {
  DELIVERY,
  INSERT_EVENT,
  insertDeliveryRows,
  QUEUE_HEAD,
  SUBSCRIPTION,
  TARGETS,
  wholeMs,
} from "./statements.js";
import { sqlSubscriptionStore } from "./subscriptions.js";

/** The tables that hold copies an erasure rewrites (envelopes, bodies, response excerpts): D-257. */
const COPIES = ["webhook_events", "webhook_deliveries", "webhook_attempts", "platform_events"];

/** The webhooks record as the capabilities use it (D-221): the type of its store, documented there (D-374). */
export type WebhookStore = ReturnType<typeof sqlWebhookStore>;

/**
 * The webhooks record, once for both databases (D-275): subscriptions, events, deliveries and their attempts, the
 * platform events received and their routing to vendors, the retention purge; the delivery hot path as named methods
 * running statements compiled once (statements.ts, D-243). Built without I/O: a transaction builds its own.
 */
export function sqlWebhookStore(sql: StoreSql) {
  return {
    platformEvents: sqlPlatformEventStore(sql),
    routing: sqlEventRoutingStore(sql),
    subscriptions: sqlSubscriptionStore(sql),
    deliveries: sqlDeliveryStore(sql),
    targets: async (vendorKeyId: string, companyId: string) =>
      (await TARGETS.run(sql, { vendorKeyId, companyId })).rows,
    /**
     * An event's deliveries (one already there is skipped; the ids of the new ones), then its envelope if one is new:
     * in one transaction (the caller's, or their own), so no delivery is ever without its envelope (D-244).
     */
    async insertDeliveries(event: NewWebhookEvent, deliveries: readonly NewWebhookDelivery[]): Promise<string[]> {
      if (deliveries.length === 0) return [];
      // One order for every writer (the unique index's, in a bytewise collation; any fixed order would do), so two
      // transactions inserting overlapping keys wait on each other, never deadlock.
      const sorted = [...deliveries].sort(
        (a, b) => byCodeUnits(a.dedupeKey, b.dedupeKey) || byCodeUnits(a.subscriptionId, b.subscriptionId),
      );
      const inserted = await sql.atomically(async (db) => {
        const on = { db, dialect: sql.dialect };
        const ids = await insertDeliveryRows(on, event, sorted);
        // Neither made nor stored when every delivery was already there (a repeated hook).
        if (ids.size > 0) {
          const { id, companyId, createdAt } = event;
          const envelope = event.envelope();
          const traceParent = event.traceParent ?? null;
          await INSERT_EVENT.run(on, { id, companyId, event: event.event, envelope, createdAt, traceParent });
        }
        return ids;
      });
      return deliveries.filter((d) => inserted.has(d.id)).map((d) => d.id);
    },
    subscription: async (id: string) => (await SUBSCRIPTION.run(sql, { id })).rows[0],
    queueHead: async (subscriptionId: string, limit: number) =>
      (await QUEUE_HEAD.run(sql, { subscriptionId, limit })).rows,
    delivery: async (id: string) => (await DELIVERY.run(sql, { id })).rows[0],
    // Together: inline in the dispatcher's group commit.
    recordAttempt: (attempt: NewWebhookAttempt, outcome: AttemptOutcome) =>
      sql.atomically((db) => recordAttemptOn({ db, dialect: sql.dialect }, attempt, outcome)),
    async endpointSucceeded(subscriptionId: string) {
      await ENDPOINT_SUCCEEDED.run(sql, { id: subscriptionId });
    },
    async endpointFailed(subscriptionId: string, nowMs: number, pausedUntil: number | null) {
      const failure = { id: subscriptionId, nowMs: wholeMs(nowMs), pausedUntil: wholeMs(pausedUntil) };
      return (await ENDPOINT_FAILED.run(sql, failure)).rows[0];
    },
    replayStore: (companyId: string) => sqlReplayStore(sql, companyId),
    purgePlatformDeliveries: purgePlatformDeliveries.bind(undefined, sql),
    purgeHistory: purgeWebhookHistory.bind(undefined, sql),
    // On SQLite the submissions store's truncates the WAL for the whole file (sql/compaction.ts).
    compactAfterErasure: () => compactAfterErasure(sql, COPIES, "nothing"),
  };
}
