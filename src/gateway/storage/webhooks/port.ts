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
  /** One of a company's subscriptions (another company's is not found). */
  getOfCompany(id: string, companyId: string): Promise<WebhookSubscriptionRow | undefined>;
  /** A company's subscriptions (of one vendor key, if given), newest first (ids are time-ordered: D-246). */
  listOfCompany(companyId: string, vendorKeyId?: string): Promise<WebhookSubscriptionRow[]>;
  insert(row: NewWebhookSubscription): Promise<void>;
  update(id: string, change: Partial<WebhookSubscriptionRow>): Promise<void>;
  /** Its deliveries and their attempts go with it (the foreign keys cascade). */
  delete(id: string): Promise<void>;
  /** A subscription's deliveries by status. */
  deliveryCounts(subscriptionId: string): Promise<Record<string, number>>;
}

/** Deliveries beyond the hot path: the owner's log and redelivery, the dispatcher's start, erasure. */
export interface DeliveryStore {
  /** A subscription's deliveries of one status, newest first, `limit` of them below `before`. */
  pageOf(
    subscriptionId: string,
    status: WebhookDeliveryStatus,
    before: string | undefined,
    limit: number,
  ): Promise<WebhookDeliveryRow[]>;
  /** One of a company's deliveries (another company's is not found). */
  getOfCompany(id: string, companyId: string): Promise<WebhookDeliveryRow | undefined>;
  envelopeOf(eventId: string): Promise<string | undefined>;
  /** A delivery's attempts, in order. */
  attemptsOf(deliveryRowId: string): Promise<WebhookAttemptRow[]>;
  update(id: string, change: Partial<WebhookDeliveryRow>): Promise<void>;
  /** Resets a subscription's deliveries created in [from, to] with these statuses (never a pending one) to `change`. */
  resetRange(
    subscriptionId: string,
    statuses: WebhookDeliveryStatus[],
    from: Date,
    to: Date,
    change: Partial<WebhookDeliveryRow>,
  ): Promise<number>;
  /** At a dispatcher's start: `delivering` rows (a previous process's) are pending again. */
  resumeDelivering(): Promise<void>;
  /** The earliest due time of every subscription with pending work. */
  backlog(): Promise<{ subscriptionId: string; due: number | null }[]>;
  /** Disables an active subscription (its endpoint failed too long, or answered 410 Gone). */
  disableSubscription(subscriptionId: string, reason: string, nowIso: string): Promise<void>;
  /**
   * An erasure's step over a company's deliveries whose dedupe key starts with one of `prefixes` (the person's
   * submissions and appointments: `submission:<id>:`): their bodies and response excerpts are dropped, and each event
   * they carry is rewritten by `redact` (undefined: left as it is), in one transaction of its own.
   */
  eraseDeliveries(
    companyId: string,
    prefixes: readonly string[],
    redact: (envelope: string) => string | undefined,
  ): Promise<{ webhookEvents: number; pendingDeliveries: number }>;
}

/** The platform events received for a company, and the sealed ring of secrets they are verified with. */
export interface PlatformEventStore {
  /** The company's sealed secret ring (§6.3), if it has one. */
  sealedSecrets(companyId: string): Promise<string | undefined>;
  saveSealedSecrets(companyId: string, sealedSecrets: string, now: string): Promise<void>;
  /** Stores a received event; false when it is stored already (another delivery of it committed first: §6.6). */
  insert(event: NewPlatformEvent): Promise<boolean>;
  setFannedOut(companyId: string, eventId: string, fannedOut: number): Promise<void>;
  /** A company's received events, newest first, with the deliveries each made. */
  list(companyId: string, limit: number): Promise<PlatformEventSummary[]>;
  /** The raw body of a received event as stored (§6.4.1), if the company has it. */
  bodyOf(companyId: string, eventId: string): Promise<string | undefined>;
  /**
   * An erasure's pass over a company's received events, `perStep` rows per transaction: `redact` gives a row's new
   * body, or undefined to leave it. Returns how many were rewritten.
   */
  rewriteBodies(
    companyId: string,
    perStep: number,
    redact: (row: { resourceType: string; resourceId: string; body: string }) => string | undefined,
  ): Promise<number>;
}

/** What routes later platform events to the vendor that caused them (§1). */
export interface EventRoutingStore {
  rememberLead(lead: ForwardedLead, at: string): Promise<void>;
  /** The submission whose canonical body carries the lead's contact (the latest forwarded for it). */
  contactSubmissionOf(companyId: string, leadId: string): Promise<string | undefined>;
  /** The lead source that created the lead, if one did through the gateway. */
  sourceOf(companyId: string, leadId: string): Promise<string | undefined>;
  /** Records a booking; the first one of an appointment stays (a repeat does nothing). */
  rememberBooking(row: NewBookedAppointment): Promise<void>;
  /** The vendor key that booked the appointment through the gateway. */
  bookerOf(companyId: string, appointmentId: string): Promise<string | undefined>;
  /** A company's bookings through the gateway with the lead each was for (an erasure finds the person's by them). */
  bookingsOf(companyId: string): Promise<{ appointmentId: string; leadId: string | null }[]>;
}

/** The webhooks record as the capabilities use it (D-221): its delivery hot path as named methods (D-243). */
export interface WebhookStore {
  readonly platformEvents: PlatformEventStore;
  readonly routing: EventRoutingStore;
  readonly subscriptions: SubscriptionStore;
  readonly deliveries: DeliveryStore;
  /** Active subscriptions of a vendor key (fan-out; the caller checks the key is not revoked). */
  targets(vendorKeyId: string, companyId: string): Promise<WebhookTarget[]>;
  /**
   * An event's deliveries (one already there is skipped) and, if any is new, its envelope, in one transaction: the ids
   * of the new ones.
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
   * After an erasure has committed, no old version of an erased webhook copy stays in the database (D-241, D-257;
   * sql/compaction.ts: on SQLite the submissions store's does it for the whole file).
   */
  compactAfterErasure(): Promise<boolean>;
}
