import type { ReplayStore } from "../../../../contract/replay-store.js";
import type { PgHandles } from "../../pg-handles.js";
import type {
  AttemptOutcome,
  DeliveryToSend,
  EndpointFailures,
  NewWebhookAttempt,
  NewWebhookDelivery,
  NewWebhookEvent,
  QueuedDelivery,
  WebhookStore,
  WebhookTarget,
} from "../port.js";
import type { PurgedWebhookHistory } from "../retention.js";
import type { WebhookSubscriptionRow } from "../subscriptions.js";
import { PostgresDeliveryStore } from "./deliveries.js";
import { PostgresPlatformEventStore } from "./platform-events.js";
import { PostgresReplayStore, purgePlatformDeliveries } from "./replay-store.js";
import { compactAfterErasure, purgeWebhookHistory } from "./retention.js";
import { PostgresEventRoutingStore } from "./routing.js";
import { run, STATEMENTS } from "./statements.js";
import { PostgresSubscriptionStore } from "./subscriptions.js";

/**
 * The webhooks record on PostgreSQL (D-243…D-246), method by method the SQLite store's (../store.ts). The delivery
 * hot path runs named prepared statements (statements.ts) on `handles.client`: the pool, or the client of the
 * transaction the store is bound to. Construction does no I/O, so a transaction builds its own store.
 */
export class PostgresWebhookStore implements WebhookStore {
  readonly #handles: PgHandles;
  readonly platformEvents: PostgresPlatformEventStore;
  readonly routing: PostgresEventRoutingStore;
  readonly subscriptions: PostgresSubscriptionStore;
  readonly deliveries: PostgresDeliveryStore;

  constructor(handles: PgHandles) {
    this.#handles = handles;
    this.platformEvents = new PostgresPlatformEventStore(handles);
    this.routing = new PostgresEventRoutingStore(handles);
    this.subscriptions = new PostgresSubscriptionStore(handles);
    this.deliveries = new PostgresDeliveryStore(handles);
  }

  async targets(vendorKeyId: string, companyId: string): Promise<WebhookTarget[]> {
    return (await run<WebhookTarget>(this.#handles.client, STATEMENTS.targets, [vendorKeyId, companyId])).rows;
  }

  /**
   * One statement for the whole fan-out (D-244). The envelope is made before it, so also when every delivery turns
   * out to be there already (a repeated hook): the price of one round trip instead of two.
   */
  async insertDeliveries(event: NewWebhookEvent, deliveries: readonly NewWebhookDelivery[]): Promise<string[]> {
    if (deliveries.length === 0) return [];
    // One order for every writer, so two transactions inserting overlapping keys wait on each other, never deadlock.
    const sorted = [...deliveries].sort(
      (a, b) => compare(a.dedupeKey, b.dedupeKey) || compare(a.subscriptionId, b.subscriptionId),
    );
    const { rows } = await run<{ id: string }>(this.#handles.client, STATEMENTS.insertDeliveries, [
      event.companyId,
      event.id,
      event.event,
      sorted.map((d) => d.id),
      sorted.map((d) => d.subscriptionId),
      sorted.map((d) => d.dedupeKey),
      sorted.map((d) => d.sourceEventId),
      sorted.map((d) => d.nextAttemptAt),
      sorted.map((d) => d.createdAt),
      sorted.map((d) => d.createdAtMs),
      event.envelope(),
      event.createdAt,
    ]);
    const inserted = new Set(rows.map((r) => r.id));
    return deliveries.filter((d) => inserted.has(d.id)).map((d) => d.id);
  }

  async subscription(id: string): Promise<WebhookSubscriptionRow | undefined> {
    return (await run<WebhookSubscriptionRow>(this.#handles.client, STATEMENTS.subscription, [id])).rows[0];
  }

  async queueHead(subscriptionId: string, limit: number): Promise<QueuedDelivery[]> {
    return (await run<QueuedDelivery>(this.#handles.client, STATEMENTS.queueHead, [subscriptionId, limit])).rows;
  }

  async delivery(id: string): Promise<DeliveryToSend | undefined> {
    return (await run<DeliveryToSend>(this.#handles.client, STATEMENTS.delivery, [id])).rows[0];
  }

  async recordAttempt(attempt: NewWebhookAttempt, outcome: AttemptOutcome): Promise<void> {
    await run(this.#handles.client, STATEMENTS.recordAttempt, [
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
      outcome.status,
      outcome.attempts,
      outcome.lastStatus,
      outcome.lastError,
      outcome.body,
      outcome.profileVersionId,
      outcome.retryIndex,
      outcome.nextAttemptAt,
      outcome.deliveredAt,
      outcome.failedAt,
    ]);
  }

  async endpointSucceeded(subscriptionId: string): Promise<void> {
    await run(this.#handles.client, STATEMENTS.endpointSucceeded, [subscriptionId]);
  }

  async endpointFailed(
    subscriptionId: string,
    nowMs: number,
    pausedUntil: number | null,
  ): Promise<EndpointFailures | undefined> {
    const { rows } = await run<EndpointFailures>(this.#handles.client, STATEMENTS.endpointFailed, [
      nowMs,
      pausedUntil,
      subscriptionId,
    ]);
    return rows[0];
  }

  replayStore(companyId: string): ReplayStore {
    return new PostgresReplayStore(this.#handles, companyId);
  }

  async purgePlatformDeliveries(nowSeconds: number): Promise<number> {
    return purgePlatformDeliveries(this.#handles, nowSeconds);
  }

  async purgeHistory(cutoffMs: number, companyIds: readonly string[]): Promise<PurgedWebhookHistory> {
    return purgeWebhookHistory(this.#handles, cutoffMs, companyIds);
  }

  /** VACUUM of the tables holding webhook copies of a person's data, once an erasure has committed (D-257). */
  compactAfterErasure(): Promise<boolean> {
    return compactAfterErasure(this.#handles);
  }
}

/** Code-unit order, as the unique index orders in a bytewise collation (any fixed order avoids the deadlock). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
