export { DeliveryStore, type WebhookDeliveryRow, type WebhookDeliveryStatus } from "./deliveries.js";
export { type NewPlatformEvent, PlatformEventStore } from "./platform-events.js";
export type { PurgedWebhookHistory } from "./retention.js";
export { EventRoutingStore, type NewBookedAppointment } from "./routing.js";
export { type DeliveryToSend, PENDING, type WebhookStatements } from "./statements.js";
export { WebhookStore } from "./store.js";
export { SubscriptionStore, type WebhookSubscriptionRow } from "./subscriptions.js";
