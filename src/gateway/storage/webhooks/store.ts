import type { ReplayStore } from "../../../contract/replay-store.js";
import type { StorageHandles } from "../handles.js";
import type { GateView } from "../sqlite-gate.js";
import { SqliteDeliveryStore } from "./deliveries.js";
import { SqlitePlatformEventStore } from "./platform-events.js";
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
} from "./port.js";
import { DbReplayStore, purgePlatformDeliveries } from "./replay-store.js";
import { type PurgedWebhookHistory, purgeWebhookHistory } from "./retention.js";
import { SqliteEventRoutingStore } from "./routing.js";
import { prepareWebhookStatements, type WebhookStatements } from "./statements.js";
import type { WebhookSubscriptionRow } from "./subscriptions.js";
import { SqliteSubscriptionStore } from "./subscriptions.js";

/**
 * The webhooks record on SQLite: vendors' subscriptions, the events and deliveries made for them with their attempts,
 * the platform events received (their secrets, the §6.6 replay store), what routes those to vendors (sourced leads,
 * booked appointments), and the retention purge of its tables. The delivery hot path (fan-out, the dispatcher's
 * queue, recording attempts) runs statements prepared once (statements.ts), as measured by bench:fanout, behind the
 * named methods of port.ts; the rest are methods of the sub-stores.
 */
export class SqliteWebhookStore implements WebhookStore {
  readonly #handles: StorageHandles;
  readonly #gate: GateView;
  readonly #statements: WebhookStatements;
  readonly platformEvents: SqlitePlatformEventStore;
  readonly routing: SqliteEventRoutingStore;
  readonly subscriptions: SqliteSubscriptionStore;
  readonly deliveries: SqliteDeliveryStore;

  constructor(handles: StorageHandles) {
    this.#handles = handles;
    this.#gate = handles.gate;
    this.platformEvents = new SqlitePlatformEventStore(handles);
    this.routing = new SqliteEventRoutingStore(handles);
    this.subscriptions = new SqliteSubscriptionStore(handles);
    this.deliveries = new SqliteDeliveryStore(handles);
    this.#statements = prepareWebhookStatements(handles);
  }

  async targets(vendorKeyId: string, companyId: string): Promise<WebhookTarget[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#statements.targets.all({ vendorKeyId, companyId });
  }

  async insertDeliveries(event: NewWebhookEvent, deliveries: readonly NewWebhookDelivery[]): Promise<string[]> {
    while (this.#gate.busy) await this.#gate.pass();
    const inserted: string[] = [];
    for (const d of deliveries) {
      const result = this.#statements.insertDelivery.run(
        d.id,
        event.companyId,
        d.subscriptionId,
        event.id,
        event.event,
        d.dedupeKey,
        d.sourceEventId,
        d.nextAttemptAt,
        d.createdAt,
        d.createdAtMs,
      );
      if (result.changes > 0) inserted.push(d.id);
    }
    // Stored once for all its deliveries; not at all when every delivery was already there (a repeated hook).
    if (inserted.length > 0) {
      this.#statements.insertEvent.run(event.id, event.companyId, event.event, event.envelope(), event.createdAt);
    }
    return inserted;
  }

  async subscription(id: string): Promise<WebhookSubscriptionRow | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#statements.subscription.get({ id });
  }

  async queueHead(subscriptionId: string, limit: number): Promise<QueuedDelivery[]> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#statements.queueHead.all({ id: subscriptionId, limit });
  }

  async delivery(id: string): Promise<DeliveryToSend | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#statements.delivery.get({ id });
  }

  async recordAttempt(attempt: NewWebhookAttempt, outcome: AttemptOutcome): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#statements.insertAttempt.run(
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
      attempt.deliveryRowId,
    );
    this.#statements.updateDelivery.run(
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
      attempt.deliveryRowId,
    );
  }

  async endpointSucceeded(subscriptionId: string): Promise<void> {
    while (this.#gate.busy) await this.#gate.pass();
    this.#statements.endpointSucceeded.run(subscriptionId);
  }

  async endpointFailed(
    subscriptionId: string,
    nowMs: number,
    pausedUntil: number | null,
  ): Promise<EndpointFailures | undefined> {
    while (this.#gate.busy) await this.#gate.pass();
    return this.#statements.endpointFailed.get(nowMs, pausedUntil, subscriptionId) as EndpointFailures | undefined;
  }

  replayStore(companyId: string): ReplayStore {
    return new DbReplayStore(this.#handles, companyId);
  }

  async purgePlatformDeliveries(nowSeconds: number): Promise<number> {
    while (this.#gate.busy) await this.#gate.pass();
    return purgePlatformDeliveries(this.#handles, nowSeconds);
  }

  async purgeHistory(cutoffMs: number, companyIds: readonly string[]): Promise<PurgedWebhookHistory> {
    while (this.#gate.busy) await this.#gate.pass();
    return purgeWebhookHistory(this.#handles, cutoffMs, companyIds);
  }

  /** Nothing of its own on SQLite: the submissions store's checkpoint empties the WAL of the whole file (D-257). */
  async compactAfterErasure(): Promise<boolean> {
    return true;
  }
}
