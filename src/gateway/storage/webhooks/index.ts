export type { WebhookDeliveryRow, WebhookDeliveryStatus } from "./deliveries.js";
export { SqliteDeliveryStore } from "./deliveries.js";
export { type NewPlatformEvent, SqlitePlatformEventStore } from "./platform-events.js";
export type {
  AttemptOutcome,
  DeliveryStore,
  DeliveryToSend,
  EndpointFailures,
  EventRoutingStore,
  NewWebhookAttempt,
  NewWebhookDelivery,
  NewWebhookEvent,
  PlatformEventStore,
  PlatformEventSummary,
  QueuedDelivery,
  SubscriptionStore,
  WebhookAttemptRow,
  WebhookStore,
  WebhookTarget,
} from "./port.js";
export { PostgresWebhookStore } from "./postgres/store.js";
export type { PurgedWebhookHistory } from "./retention.js";
export { type NewBookedAppointment, SqliteEventRoutingStore } from "./routing.js";
export { SqliteWebhookStore } from "./store.js";
export { type NewWebhookSubscription, SqliteSubscriptionStore, type WebhookSubscriptionRow } from "./subscriptions.js";
