import { z } from "@hono/zod-openapi";

/** Request and response shapes of the owner API, for validation and the OpenAPI document. */
export const errorBody = z.object({ error: z.string() }).passthrough().openapi("Error");

export const signInBody = z.object({ email: z.string().min(3), password: z.string().min(1) }).openapi("SignIn");
export const tokenBody = z
  .object({ name: z.string().min(1).max(100), expiresInDays: z.number().int().min(1).max(3650).optional() })
  .openapi("TokenRequest");

export const credentialBody = z
  .object({ name: z.string().min(1).max(100), value: z.string().min(10).max(300) })
  .openapi("UpstreamCredentialRequest");
export const credentialRotateBody = z.object({ value: z.string().min(10).max(300) }).openapi("CredentialRotation");

const scope = z.enum(["leads:write", "appointments:write"]);
export const vendorKeyBody = z
  .object({
    name: z.string().min(1).max(100),
    partnerType: z.enum(["lead_source", "booking_vendor"]),
    scopes: z.array(scope).min(1),
    credentialId: z.string().min(1),
    leadProfileVersionId: z.string().nullable().optional(),
    appointmentProfileVersionId: z.string().nullable().optional(),
    responseMode: z.enum(["async", "sync"]).optional(),
  })
  .openapi("VendorKeyRequest");
export const vendorKeyUpdateBody = z
  .object({
    name: z.string().min(1).max(100).optional(),
    credentialId: z.string().min(1).optional(),
    leadProfileVersionId: z.string().nullable().optional(),
    appointmentProfileVersionId: z.string().nullable().optional(),
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

export const kind = z.enum(["lead", "appointment", "outbound"]);
export const profileBody = z
  .object({ name: z.string().min(1).max(100), kind, description: z.string().max(1000).nullable().optional() })
  .openapi("ProfileRequest");
export const sampleSchema = z
  .object({
    name: z.string().min(1).max(200),
    payload: z.unknown(),
    expect: z.union([
      z.object({ body: z.unknown() }),
      z.object({
        error: z.object({
          field: z.string().optional(),
          kind: z.enum(["validation", "mapping", "guardrail"]).optional(),
        }),
      }),
    ]),
  })
  .openapi("GoldenSample");
export const versionBody = z
  .object({ expression: z.string().min(1).max(100_000), samples: z.array(sampleSchema).max(200) })
  .openapi("ProfileVersionRequest");
export const rollbackBody = z.object({ versionId: z.string().min(1) }).openapi("Rollback");
export const previewBody = z
  .object({
    kind: z.enum(["lead", "appointment", "outbound"]),
    expression: z.string().min(1).max(100_000),
    payload: z.unknown(),
  })
  .openapi("PreviewRequest");
export const replayBody = z
  .object({
    keyId: z.string().min(1),
    kind: z.enum(["lead", "appointment"]),
    expression: z.string().min(1).max(100_000),
    limit: z.number().int().min(1).max(500).default(50),
  })
  .openapi("ReplayRequest");
export const submissionQuery = z.object({
  status: z.enum(["queued", "waiting", "forwarding", "forwarded", "failed"]).optional(),
  keyId: z.string().optional(),
  kind: z.enum(["lead", "appointment"]).optional(),
  from: z.iso.datetime().optional(),
  to: z.iso.datetime().optional(),
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export const erasureBody = z
  .object({ email: z.string().min(3).optional(), phone: z.string().min(3).optional() })
  .openapi("ErasureRequest");

export const redriveBody = z
  .object({
    submissionIds: z.array(z.string().min(1)).min(1).max(1000).optional(),
    filter: z
      .object({
        keyId: z.string().optional(),
        kind: z.enum(["lead", "appointment"]).optional(),
        from: z.iso.datetime().optional(),
        to: z.iso.datetime().optional(),
      })
      .optional(),
    all: z.boolean().optional(),
    profileVersionId: z.string().optional(),
  })
  .openapi("RedriveRequest");
