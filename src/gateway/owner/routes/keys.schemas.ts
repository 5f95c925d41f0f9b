import { z } from "@hono/zod-openapi";
import { id, timestamp } from "./common.schemas.js";

/** Vendor keys and their recent payloads (D-230). */

const scope = z.enum(["leads:write", "appointments:write"]);

export const vendorKeyBody = z
  .object({
    name: z.string().min(1).max(100),
    partnerType: z.enum(["lead_source", "booking_vendor"]),
    scopes: z.array(scope).min(1).max(scope.options.length),
    credentialId: id,
    leadProfileVersionId: id.nullable().optional(),
    appointmentProfileVersionId: id.nullable().optional(),
    responseMode: z.enum(["async", "sync"]).optional(),
  })
  .openapi("VendorKeyRequest");

export const vendorKeyUpdateBody = z
  .object({
    name: z.string().min(1).max(100).optional(),
    credentialId: id.optional(),
    leadProfileVersionId: id.nullable().optional(),
    appointmentProfileVersionId: id.nullable().optional(),
    responseMode: z.enum(["async", "sync"]).optional(),
  })
  .openapi("VendorKeyUpdate");

export const vendorKeyRotateBody = z
  .object({
    overlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(30 * 86_400)
      .optional(),
  })
  .openapi("VendorKeyRotation");

const vendorKeyFields = {
  id: z.string(),
  keyPrefix: z.string(),
  name: z.string(),
  partnerType: z.enum(["lead_source", "booking_vendor"]),
  scopes: z.array(z.enum(["leads:write", "appointments:write"])),
  credentialId: z.string(),
  leadProfileVersionId: z.string().nullable(),
  appointmentProfileVersionId: z.string().nullable(),
  responseMode: z.enum(["async", "sync"]),
  /** When the key was put in capture mode (D-315); null: off. */
  captureSince: timestamp.nullable(),
  previousValidUntil: timestamp.nullable(),
  createdAt: timestamp,
  revokedAt: timestamp.nullable(),
};

export const vendorKey = z.strictObject(vendorKeyFields).openapi("VendorKey");

/** A key as issued or rotated: with the full key (`<keyId>.<secret>`), shown this once. */
export const vendorKeyWithSecret = z
  .strictObject({ ...vendorKeyFields, key: z.string() })
  .openapi("VendorKeyWithSecret");

export const vendorKeyList = z.strictObject({ keys: z.array(vendorKey) }).openapi("VendorKeyList");

export const recentPayloadsQuery = z.object({
  kind: z.enum(["lead", "appointment"]).optional(),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});

export const recentPayloads = z
  .strictObject({
    payloads: z.array(
      z.strictObject({
        submissionId: z.string(),
        kind: z.enum(["lead", "appointment"]),
        createdAt: timestamp,
        payload: z.unknown(),
      }),
    ),
  })
  .openapi("RecentPayloads");
