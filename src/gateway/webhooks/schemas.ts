import { z } from "@hono/zod-openapi";
import { id, instant } from "../owner/schemas.js";

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
