import { compactAfterErasure } from "../sql/compaction.js";
import { byCodeUnits, type StoreSql } from "../sql/store-sql.js";
import { sqlDeliveryStore } from "./deliveries.js";
import { ENDPOINT_FAILED, ENDPOINT_SUCCEEDED, recordAttemptOn } from "./outcomes.js";
import { sqlPlatformEventStore } from "./platform-events.js";
import type { WebhookStore } from "./port.js";
import { purgePlatformDeliveries, sqlReplayStore } from "./replay-store.js";
import { purgeWebhookHistory } from "./retention.js";
import { sqlEventRoutingStore } from "./routing.js";
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

/**
 * The webhooks record, once for SQLite and PostgreSQL (D-275): subscriptions, events, deliveries and their attempts,
 * the platform events received, what routes those to vendors, and the retention purge. The delivery hot path runs
 * statements compiled once (statements.ts, D-243). Construction does no I/O, so a transaction builds its own store.
 */
export function sqlWebhookStore(sql: StoreSql): WebhookStore {
  return {
    platformEvents: sqlPlatformEventStore(sql),
    routing: sqlEventRoutingStore(sql),
    subscriptions: sqlSubscriptionStore(sql),
    deliveries: sqlDeliveryStore(sql),
    targets: async (vendorKeyId, companyId) => (await TARGETS.run(sql, { vendorKeyId, companyId })).rows,
    // Its deliveries (statements.ts), then its envelope only if one of them is new: both in one transaction (the
    // caller's, or one of their own), so no delivery is ever without its envelope (D-244).
    async insertDeliveries(event, deliveries) {
      if (deliveries.length === 0) return [];
      // One order for every writer (the unique index's, in a bytewise collation; any fixed order would do), so two
      // transactions inserting overlapping keys wait on each other, never deadlock.
      const sorted = [...deliveries].sort(
        (a, b) => byCodeUnits(a.dedupeKey, b.dedupeKey) || byCodeUnits(a.subscriptionId, b.subscriptionId),
      );
      const inserted = await sql.atomically(async (db) => {
        const on = { db, dialect: sql.dialect };
        const ids = await insertDeliveryRows(on, event, sorted);
        // Stored once for all its deliveries; not at all (nor made) when every delivery was already there (a repeated
        // hook).
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
    subscription: async (id) => (await SUBSCRIPTION.run(sql, { id })).rows[0],
    queueHead: async (subscriptionId, limit) => (await QUEUE_HEAD.run(sql, { subscriptionId, limit })).rows,
    delivery: async (id) => (await DELIVERY.run(sql, { id })).rows[0],
    // Together: inline in the dispatcher's group commit.
    recordAttempt: (attempt, outcome) =>
      sql.atomically((db) => recordAttemptOn({ db, dialect: sql.dialect }, attempt, outcome)),
    async endpointSucceeded(subscriptionId) {
      await ENDPOINT_SUCCEEDED.run(sql, { id: subscriptionId });
    },
    async endpointFailed(subscriptionId, nowMs, pausedUntil) {
      const failure = { id: subscriptionId, nowMs: wholeMs(nowMs), pausedUntil: wholeMs(pausedUntil) };
      return (await ENDPOINT_FAILED.run(sql, failure)).rows[0];
    },
    replayStore: (companyId) => sqlReplayStore(sql, companyId),
    purgePlatformDeliveries: (nowSeconds) => purgePlatformDeliveries(sql, nowSeconds),
    purgeHistory: (cutoffMs, companyIds) => purgeWebhookHistory(sql, cutoffMs, companyIds),
    compactAfterErasure: () => compactAfterErasure(sql, COPIES, "nothing"),
  };
}
