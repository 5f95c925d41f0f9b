import type { ReplayStore } from "../../../contract/replay-store.js";
import type {
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

/** Vendors' webhook subscriptions. */
export interface SubscriptionStore {
  getOfCompany(id: string, companyId: string): Promise<WebhookSubscriptionRow | undefined>;
  listOfCompany(companyId: string, vendorKeyId?: string): Promise<WebhookSubscriptionRow[]>;
  insert(row: NewWebhookSubscription): Promise<void>;
  update(id: string, change: Partial<WebhookSubscriptionRow>): Promise<void>;
  delete(id: string): Promise<void>;
  /** A subscription's deliveries by status. */
  deliveryCounts(subscriptionId: string): Promise<Record<string, number>>;
}

/** Events, deliveries and attempts beyond the hot path: the owner's log and redelivery, the dispatcher's start, erasure. */
export interface DeliveryStore {
  pageOf(
    subscriptionId: string,
    status: WebhookDeliveryStatus,
    before: string | undefined,
    limit: number,
  ): Promise<WebhookDeliveryRow[]>;
  getOfCompany(id: string, companyId: string): Promise<WebhookDeliveryRow | undefined>;
  envelopeOf(eventId: string): Promise<string | undefined>;
  attemptsOf(deliveryRowId: string): Promise<WebhookAttemptRow[]>;
  update(id: string, change: Partial<WebhookDeliveryRow>): Promise<void>;
  resetRange(
    subscriptionId: string,
    statuses: WebhookDeliveryStatus[],
    from: Date,
    to: Date,
    change: Partial<WebhookDeliveryRow>,
  ): Promise<number>;
  resumeDelivering(): Promise<void>;
  backlog(): Promise<{ subscriptionId: string; due: number | null }[]>;
  disableSubscription(subscriptionId: string, reason: string, nowIso: string): Promise<void>;
  eraseDeliveries(
    companyId: string,
    prefixes: readonly string[],
    redact: (envelope: string) => string | undefined,
  ): Promise<{ webhookEvents: number; pendingDeliveries: number }>;
}

/** The platform events received for a company, and the sealed ring of secrets they are verified with. */
export interface PlatformEventStore {
  sealedSecrets(companyId: string): Promise<string | undefined>;
  saveSealedSecrets(companyId: string, sealedSecrets: string, now: string): Promise<void>;
  /** Stores a received event; false when it is stored already. */
  insert(event: NewPlatformEvent): Promise<boolean>;
  setFannedOut(companyId: string, eventId: string, fannedOut: number): Promise<void>;
  list(companyId: string, limit: number): Promise<PlatformEventSummary[]>;
  /** The raw body of a received event as stored (§6.4.1), if the company has it. */
  bodyOf(companyId: string, eventId: string): Promise<string | undefined>;
  rewriteBodies(
    companyId: string,
    perStep: number,
    redact: (row: { resourceType: string; resourceId: string; body: string }) => string | undefined,
  ): Promise<number>;
}

/** What routes later platform events to the vendor that caused them (§1). */
export interface EventRoutingStore {
  rememberLead(lead: ForwardedLead, at: string): Promise<void>;
  contactSubmissionOf(companyId: string, leadId: string): Promise<string | undefined>;
  sourceOf(companyId: string, leadId: string): Promise<string | undefined>;
  rememberBooking(row: NewBookedAppointment): Promise<void>;
  bookerOf(companyId: string, appointmentId: string): Promise<string | undefined>;
  bookingsOf(companyId: string): Promise<{ appointmentId: string; leadId: string | null }[]>;
}

/**
 * The webhooks record as the capabilities use it (D-221). The delivery hot path — fan-out (`targets`,
 * `insertDeliveries`), the dispatcher's queue (`subscription`, `queueHead`, `delivery`) and its outcomes
 * (`recordAttempt`, `endpointSucceeded`, `endpointFailed`) — is named methods here, however an implementation runs
 * them (statements compiled once: statements.ts).
 */
export interface WebhookStore {
  readonly platformEvents: PlatformEventStore;
  readonly routing: EventRoutingStore;
  readonly subscriptions: SubscriptionStore;
  readonly deliveries: DeliveryStore;
  /** Active subscriptions of a vendor key (fan-out; the caller checks the key is not revoked). */
  targets(vendorKeyId: string, companyId: string): Promise<WebhookTarget[]>;
  /**
   * An event's deliveries (one already there is skipped) and, if any is new, its envelope: the ids of the new ones.
   */
  insertDeliveries(event: NewWebhookEvent, deliveries: readonly NewWebhookDelivery[]): Promise<string[]>;
  subscription(id: string): Promise<WebhookSubscriptionRow | undefined>;
  /** The head of a subscription's pending queue, oldest due first. */
  queueHead(subscriptionId: string, limit: number): Promise<QueuedDelivery[]>;
  /** One delivery with its event's envelope. */
  delivery(id: string): Promise<DeliveryToSend | undefined>;
  /** An attempt and what it leaves of its delivery (nothing when the delivery went with its subscription). */
  recordAttempt(attempt: NewWebhookAttempt, outcome: AttemptOutcome): Promise<void>;
  /** Clears an endpoint's failure record after a success. */
  endpointSucceeded(subscriptionId: string): Promise<void>;
  /** Counts one more failure (and a Retry-After pause): the record after it. */
  endpointFailed(
    subscriptionId: string,
    nowMs: number,
    pausedUntil: number | null,
  ): Promise<EndpointFailures | undefined>;
  /** §6.6 for one company's receiver. */
  replayStore(companyId: string): ReplayStore;
  /** Forgets delivery ids whose signatures have expired. */
  purgePlatformDeliveries(nowSeconds: number): Promise<number>;
  /** The retention purge of the webhook tables for what was created before `cutoffMs`. */
  purgeHistory(cutoffMs: number, companyIds: readonly string[]): Promise<PurgedWebhookHistory>;
  /**
   * After an erasure has committed, no old version of an erased webhook copy (an envelope, a platform event's body)
   * stays in the database (D-241, D-257). SQLite: nothing to do here, true (the submissions store's checkpoint
   * covers the whole file). PostgreSQL: VACUUM of the webhook tables that hold copies, true once it ran; never inside
   * a transaction.
   */
  compactAfterErasure(): Promise<boolean>;
}
