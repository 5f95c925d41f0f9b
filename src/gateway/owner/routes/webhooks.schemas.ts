import { z } from "@hono/zod-openapi";
import { id, instant, timestamp } from "./common.schemas.js";

/** The webhook owner API (§4.3 leaves the bodies open; docs/webhooks-gateway.md; D-230). */

/** Request shapes of the webhook owner API (§4.3 leaves the bodies open; docs/webhooks-gateway.md). */
const version = z.number().int().min(1).max(999_999_999);

const overlapSeconds = z
  .number()
  .int()
  .min(0)
  .max(7 * 86_400)
  .optional();

export const platformSecretBody = z
  .object({ version, secret: z.string().min(16).max(512) })
  .openapi("PlatformSecretLoad");

export const platformActivateBody = z.object({ overlapSeconds }).openapi("PlatformSecretActivation");

export const subscriptionBody = z
  .object({
    vendorKeyId: id,
    url: z.string().min(1).max(2048),
    events: z.array(z.string().min(1).max(100)).min(1).max(20),
    outboundProfileVersionId: id.nullable().optional(),
  })
  .openapi("WebhookSubscriptionRequest");

export const subscriptionUpdateBody = z
  .object({
    url: z.string().min(1).max(2048).optional(),
    events: z.array(z.string().min(1).max(100)).min(1).max(20).optional(),
    outboundProfileVersionId: id.nullable().optional(),
    status: z.enum(["active", "disabled"]).optional(),
  })
  .openapi("WebhookSubscriptionUpdate");

export const activateSecretBody = z
  .object({ pendingSecretVersion: version, overlapSeconds })
  .openapi("WebhookSecretActivation");

export const redeliverRangeBody = z
  .object({
    from: instant,
    to: instant,
    statuses: z
      .array(z.enum(["failed", "delivered"]))
      .max(2)
      .optional(),
  })
  .openapi("WebhookRedeliverRange");

export const subscriptionQuery = z.object({ vendorKeyId: id.optional() });

export const deliveryQuery = z.object({
  status: z.enum(["pending", "delivering", "delivered", "failed"]).optional(),
  before: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const eventsQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).optional() });

const secretRing = z
  .strictObject({
    currentVersion: z.number().int().nullable(),
    pendingVersion: z.number().int().nullable(),
    /** Each version held, and when it stops verifying (null: until replaced). */
    versions: z.array(z.strictObject({ version: z.number().int(), notAfter: timestamp.nullable() })),
  })
  .openapi("SecretVersions");

export const eventCatalogue = z
  .strictObject({
    signatureScheme: z.string(),
    testEvent: z.string(),
    eventsByPartnerType: z.strictObject({
      lead_source: z.array(z.string()).readonly(),
      booking_vendor: z.array(z.string()).readonly(),
    }),
  })
  .openapi("WebhookEventCatalogue");

export const platformReceiver = z
  .strictObject({ path: z.string(), configured: z.boolean(), secrets: secretRing.nullable() })
  .openapi("PlatformReceiver");

export const platformEvents = z
  .strictObject({
    events: z.array(
      z.strictObject({
        id: z.string(),
        event: z.string(),
        resourceType: z.string(),
        resourceId: z.string(),
        resourceVersion: z.number().int(),
        occurredAt: z.string(),
        receivedAt: timestamp,
        deliveryId: z.string(),
        fannedOut: z.number().int(),
      }),
    ),
  })
  .openapi("PlatformEventList");

const subscriptionFields = {
  id: z.string(),
  vendorKeyId: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  outboundProfileVersionId: z.string().nullable(),
  status: z.enum(["active", "disabled"]),
  disabledReason: z.string().nullable(),
  disabledAt: timestamp.nullable(),
  consecutiveFailures: z.number().int(),
  failingSince: timestamp.nullable(),
  pausedUntil: timestamp.nullable(),
  secrets: secretRing,
  createdAt: timestamp,
  updatedAt: timestamp,
};

export const subscription = z.strictObject(subscriptionFields).openapi("WebhookSubscription");

/** A new subscription: with secret version 1, shown this once (§6.5). */
export const createdSubscription = z
  .strictObject({ ...subscriptionFields, secret: z.strictObject({ version: z.number().int(), secret: z.string() }) })
  .openapi("CreatedWebhookSubscription");

export const deliveryCounts = z
  .strictObject({
    pending: z.number().int(),
    delivering: z.number().int(),
    delivered: z.number().int(),
    failed: z.number().int(),
  })
  .openapi("DeliveryCounts");

export const subscriptionWithCounts = z
  .strictObject({ ...subscriptionFields, deliveries: deliveryCounts })
  .openapi("WebhookSubscriptionWithCounts");

export const subscriptionList = z
  .strictObject({ subscriptions: z.array(subscription) })
  .openapi("WebhookSubscriptionList");

export const deletedSubscription = z
  .strictObject({ deleted: z.literal(true), id: z.string() })
  .openapi("DeletedWebhookSubscription");

export const rotatedSecret = z
  .strictObject({ pendingSecretVersion: z.number().int().nullable(), secret: z.string(), subscription })
  .openapi("RotatedWebhookSecret");

export const testDelivery = z
  .strictObject({ queued: z.boolean(), deliveryId: z.string().nullable() })
  .openapi("TestDelivery");

const deliveryFields = {
  id: z.string(),
  subscriptionId: z.string(),
  eventId: z.string(),
  event: z.string(),
  sourceEventId: z.string().nullable(),
  status: z.enum(["pending", "delivering", "delivered", "failed"]),
  attempts: z.number().int(),
  nextAttemptAt: timestamp.nullable(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: timestamp,
  deliveredAt: timestamp.nullable(),
  failedAt: timestamp.nullable(),
};

export const delivery = z.strictObject(deliveryFields).openapi("WebhookDelivery");

export const deliveryPage = z
  .strictObject({ deliveries: z.array(delivery), nextBefore: z.string().nullable() })
  .openapi("WebhookDeliveryPage");

export const deliveryDetail = z
  .strictObject({
    ...deliveryFields,
    /** The §6.1 envelope (null once retention dropped it). */
    envelope: z.unknown(),
    /** The exact bytes sent (null until the first attempt maps it). */
    body: z.string().nullable(),
    attempts: z.array(
      z.strictObject({
        id: z.string(),
        attempt: z.number().int(),
        deliveryId: z.string(),
        secretVersion: z.number().int().nullable(),
        startedAt: timestamp,
        status: z.number().int().nullable(),
        error: z.string().nullable(),
        responseExcerpt: z.string().nullable(),
        latencyMs: z.number().int(),
      }),
    ),
  })
  .openapi("WebhookDeliveryDetail");

export const redelivered = z.strictObject({ redelivered: z.number().int() }).openapi("WebhookRedelivery");
