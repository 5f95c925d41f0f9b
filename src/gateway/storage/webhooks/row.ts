import type {
  bookedAppointments,
  platformDeliveries,
  platformEvents,
  platformWebhookSecrets,
  sourcedLeads,
  webhookAttempts,
  webhookDeliveries,
  webhookEvents,
  webhookSubscriptions,
} from "../../../db/schema/index.js";

/** The webhooks record's rows as stored, the same on SQLite and PostgreSQL (D-275): typed from the one schema. */

/** A vendor's subscription: its key, URL, events, sealed secrets, outbound profile, status and failure record. */
export type WebhookSubscriptionRow = typeof webhookSubscriptions.$inferSelect;
export type NewWebhookSubscription = typeof webhookSubscriptions.$inferInsert;

/** One event for one subscription, with its schedule position and, once mapped, the body sent. */
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookDeliveryStatus = WebhookDeliveryRow["status"];

/** One event the gateway sends: its §6.1 envelope, stored once for all its subscriptions. */
export type WebhookEventRow = typeof webhookEvents.$inferSelect;

/** One attempt of a delivery, as its log keeps it (written whole: every field is known when it ends). */
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
export type NewWebhookAttempt = WebhookAttemptRow;

/** A delivery as the dispatcher sends it: the row, its event's envelope and the trace it belongs to. */
export type DeliveryToSend = WebhookDeliveryRow & Pick<WebhookEventRow, "envelope" | "traceParent">;

/**
 * An event's envelope, stored once for all its deliveries: made only when a delivery is new; `traceParent`, the trace
 * its deliveries join (none: a trace of their own, docs/tracing.md).
 */
export type NewWebhookEvent = Omit<WebhookEventRow, "envelope" | "traceParent"> & {
  envelope: () => string;
  traceParent?: string | null;
};

/** One pending delivery of an event to one subscription. */
export type NewWebhookDelivery = Pick<
  WebhookDeliveryRow,
  "id" | "subscriptionId" | "dedupeKey" | "sourceEventId" | "nextAttemptAt" | "createdAt" | "createdAtMs"
>;

/** What an attempt leaves of its delivery (`body`/`profileVersionId` are kept once set). */
export interface AttemptOutcome {
  status: "pending" | "delivered" | "failed";
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  body: string | null;
  profileVersionId: string | null;
  retryIndex: number;
  nextAttemptAt: number;
  deliveredAt: string | null;
  failedAt: string | null;
}

/** A platform event received (§6.6), its body exactly as it came. */
export type PlatformEventRow = typeof platformEvents.$inferSelect;
export type NewPlatformEvent = typeof platformEvents.$inferInsert;

/** A platform delivery id seen (§6.3.2), kept until `keepUntil` (Unix seconds). */
export type PlatformDeliveryRow = typeof platformDeliveries.$inferSelect;

/** A company's sealed ring of the platform's secrets (§6.5). */
export type PlatformSecretsRow = typeof platformWebhookSecrets.$inferSelect;

/** Lead → the lead source that created it and the latest submission carrying its contact. */
export type SourcedLeadRow = typeof sourcedLeads.$inferSelect;

/** A forwarded lead as routing remembers it: `source` is the key that created it, null when it only merged. */
export interface ForwardedLead {
  companyId: SourcedLeadRow["companyId"];
  leadId: SourcedLeadRow["leadId"];
  source: SourcedLeadRow["vendorKeyId"];
  submissionId: SourcedLeadRow["contactSubmissionId"];
}

/** An appointment → the booking vendor key that booked it through the gateway. */
export type NewBookedAppointment = typeof bookedAppointments.$inferInsert;

/** What one retention purge removed from the webhook tables. */
export interface PurgedWebhookHistory {
  webhookDeliveries: number;
  webhookEvents: number;
  platformEvents: number;
}
