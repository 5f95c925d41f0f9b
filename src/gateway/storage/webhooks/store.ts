import type { StorageHandles } from "../handles.js";
import { DeliveryStore } from "./deliveries.js";
import { PlatformEventStore } from "./platform-events.js";
import { DbReplayStore, purgePlatformDeliveries } from "./replay-store.js";
import { type PurgedWebhookHistory, purgeWebhookHistory } from "./retention.js";
import { EventRoutingStore } from "./routing.js";
import { prepareWebhookStatements, type WebhookStatements } from "./statements.js";
import { SubscriptionStore } from "./subscriptions.js";

/**
 * The webhooks record: vendors' subscriptions, the events and deliveries made for them with their attempts, the
 * platform events received (their secrets, the §6.6 replay store), what routes those to vendors (sourced leads,
 * booked appointments), and the retention purge of its tables. The delivery hot path runs prepared statements
 * (`statements`), as measured by bench:fanout; the rest are methods of the sub-stores.
 */
export class WebhookStore {
  readonly #handles: StorageHandles;
  readonly platformEvents: PlatformEventStore;
  /** Sourced leads and booked appointments: who hears of later platform events. */
  readonly routing: EventRoutingStore;
  /** Vendors' webhook subscriptions. */
  readonly subscriptions: SubscriptionStore;
  /** Events, deliveries and attempts (the owner's log and redelivery, the dispatcher's start, erasure). */
  readonly deliveries: DeliveryStore;
  /** The delivery hot path's statements, prepared once (fan-out, the dispatcher's queue, recording attempts). */
  readonly statements: WebhookStatements;

  constructor(handles: StorageHandles) {
    this.#handles = handles;
    this.platformEvents = new PlatformEventStore(handles);
    this.routing = new EventRoutingStore(handles);
    this.subscriptions = new SubscriptionStore(handles);
    this.deliveries = new DeliveryStore(handles);
    this.statements = prepareWebhookStatements(handles);
  }

  /** §6.6 for one company's receiver. */
  replayStore(companyId: string): DbReplayStore {
    return new DbReplayStore(this.#handles, companyId);
  }

  /** Forgets delivery ids whose signatures have expired. */
  purgePlatformDeliveries(nowSeconds: number): number {
    return purgePlatformDeliveries(this.#handles, nowSeconds);
  }

  /** The retention purge of the webhook tables for what was created before `cutoffMs` (retention.ts). */
  purgeHistory(cutoffMs: number, companyIds: readonly string[]): PurgedWebhookHistory {
    return purgeWebhookHistory(this.#handles, cutoffMs, companyIds);
  }
}
