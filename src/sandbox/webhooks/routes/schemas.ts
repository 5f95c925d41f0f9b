import { z } from "@hono/zod-openapi";
import { DELIVERY_STATUSES, PARTNER_RECORD_TYPES, PARTNER_TYPES } from "../../db/schema/index.js";

export const sessionSchema = z
  .object({ companyId: z.string().min(1).max(100), password: z.string().min(1).max(200) })
  .openapi("OwnerLogin");

/** §4.3 create body (the spec shows only "endpoint URL and the wanted events"; the rest is docs/decisions.md). */
export const newSubscriptionSchema = z
  .object({
    url: z.string().min(1).max(2048),
    events: z.array(z.string().min(1).max(200)).min(1).max(50),
    /** Inherited from the partner (docs/decisions.md); accepted only when it says the same. */
    partnerType: z.enum(PARTNER_TYPES).optional(),
    partnerId: z.string().min(1).max(100).optional(),
    partnerKeyIds: z.array(z.string().min(1).max(100)).max(50).default([]),
    schemaVersions: z.record(z.string().min(1).max(200), z.number().int().min(1).max(99)).optional(),
  })
  .openapi("NewWebhookSubscription");

/** §1 a partner of the company, recorded with its type once and for all. */
export const newPartnerSchema = z
  .object({
    name: z.string().min(1).max(200),
    type: z.enum(PARTNER_RECORD_TYPES),
    keyIds: z.array(z.string().min(1).max(100)).max(50).default([]),
    completedProjectsOptIn: z.boolean().default(false),
  })
  .openapi("NewPartner");

export const partnerOptInSchema = z.object({ completedProjectsOptIn: z.boolean() }).openapi("PartnerOptIn");

export const activateSchema = z
  .object({ pendingSecretVersion: z.number().int().min(1) })
  .openapi("ActivateWebhookSecret");

export const deliveriesQuerySchema = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  before: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const pathParams = (...names: string[]) =>
  z.object(Object.fromEntries(names.map((name) => [name, z.string().openapi({ param: { name, in: "path" } })])));
