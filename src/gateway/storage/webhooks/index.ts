export type {
  DeliveryStore,
  EventRoutingStore,
  PlatformEventStore,
  SubscriptionStore,
  WebhookStore,
} from "./port.js";
export type {
  AttemptOutcome,
  DeliveryToSend,
  EndpointFailures,
  ForwardedLead,
  NewBookedAppointment,
  NewPlatformEvent,
  NewWebhookAttempt,
  NewWebhookDelivery,
  NewWebhookEvent,
  NewWebhookSubscription,
  PlatformEventSummary,
  PurgedWebhookHistory,
  QueuedDelivery,
  WebhookAttemptRow,
  WebhookDeliveryRow,
  WebhookDeliveryStatus,
  WebhookSubscriptionRow,
  WebhookTarget,
} from "./row.js";
export { SqlWebhookStore } from "./store.js";
