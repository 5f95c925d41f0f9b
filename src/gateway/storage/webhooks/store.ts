import type { StorageHandles } from "../handles.js";
import { PlatformEventStore } from "./platform-events.js";
import { DbReplayStore, purgePlatformDeliveries } from "./replay-store.js";
import { type PurgedWebhookHistory, purgeWebhookHistory } from "./retention.js";
import { EventRoutingStore } from "./routing.js";
import { SubscriptionStore } from "./subscriptions.js";

/**
 * The webhooks record, as far as it is moved here: the platform events received (their secrets, the §6.6 replay
 * store), what routes them to vendors (sourced leads, booked appointments) and the retention purge of the webhook
 * tables. Subscriptions, events, deliveries and their attempts are still
 * read and written by the webhook verbs through their prepared statements (webhooks/statements.ts): the next step.
 */
export class WebhookStore {
  readonly #handles: StorageHandles;
  readonly platformEvents: PlatformEventStore;
  /** Sourced leads and booked appointments: who hears of later platform events. */
  readonly routing: EventRoutingStore;
  /** Vendors' webhook subscriptions. */
  readonly subscriptions: SubscriptionStore;

  constructor(handles: StorageHandles) {
    this.#handles = handles;
    this.platformEvents = new PlatformEventStore(handles);
    this.routing = new EventRoutingStore(handles);
    this.subscriptions = new SubscriptionStore(handles);
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
  purgeHistory(cutoffMs: number): PurgedWebhookHistory {
    return purgeWebhookHistory(this.#handles, cutoffMs);
  }
}
