import { z } from "@hono/zod-openapi";

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
    vendorKeyId: z.string().min(1),
    url: z.string().min(1).max(2048),
    events: z.array(z.string().min(1).max(100)).min(1).max(20),
    outboundProfileVersionId: z.string().min(1).nullable().optional(),
  })
  .openapi("WebhookSubscriptionRequest");

export const subscriptionUpdateBody = z
  .object({
    url: z.string().min(1).max(2048).optional(),
    events: z.array(z.string().min(1).max(100)).min(1).max(20).optional(),
    outboundProfileVersionId: z.string().min(1).nullable().optional(),
    status: z.enum(["active", "disabled"]).optional(),
  })
  .openapi("WebhookSubscriptionUpdate");

export const activateSecretBody = z
  .object({ pendingSecretVersion: version, overlapSeconds })
  .openapi("WebhookSecretActivation");

export const redeliverRangeBody = z
  .object({
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    statuses: z.array(z.enum(["failed", "delivered"])).optional(),
  })
  .openapi("WebhookRedeliverRange");

export const subscriptionQuery = z.object({ vendorKeyId: z.string().optional() });

export const deliveryQuery = z.object({
  status: z.enum(["pending", "delivering", "delivered", "failed"]).optional(),
  before: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const eventsQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).optional() });
