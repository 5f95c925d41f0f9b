import { z } from "@hono/zod-openapi";

/**
 * Request and response shapes of the owner API, for validation and the OpenAPI document. Every string and array has a
 * maximum (docs/decisions.md, "Bounded input"); a test walks them all.
 */

/** A record id of this gateway (`pv_…`, `key_…`): far shorter than this. */
export const id = z.string().min(1).max(100);
/** RFC 5321: a path is at most 256 octets, an address in it at most 254. */
export const email = z.string().min(3).max(254);
/** An ISO 8601 instant; its fraction of a second may have any number of digits, so it too has a maximum. */
export const instant = z.iso.datetime().max(40);
/** Passwords are hashed whole; a passphrase needs nothing near this. */
const password = z.string().min(1).max(1024);

export const signInBody = z.object({ email, password }).openapi("SignIn");
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
          field: z.string().max(200).optional(),
          kind: z.enum(["validation", "mapping", "guardrail"]).optional(),
        }),
      }),
    ]),
  })
  .openapi("GoldenSample");
export const versionBody = z
  .object({ expression: z.string().min(1).max(100_000), samples: z.array(sampleSchema).max(200) })
  .openapi("ProfileVersionRequest");
export const rollbackBody = z.object({ versionId: id }).openapi("Rollback");
export const previewBody = z
  .object({
    kind: z.enum(["lead", "appointment", "outbound"]),
    expression: z.string().min(1).max(100_000),
    payload: z.unknown(),
  })
  .openapi("PreviewRequest");
export const replayBody = z
  .object({
    keyId: id,
    kind: z.enum(["lead", "appointment"]),
    expression: z.string().min(1).max(100_000),
    limit: z.number().int().min(1).max(500).default(50),
  })
  .openapi("ReplayRequest");
export const submissionQuery = z.object({
  status: z.enum(["queued", "waiting", "forwarding", "forwarded", "failed"]).optional(),
  keyId: id.optional(),
  kind: z.enum(["lead", "appointment"]).optional(),
  from: instant.optional(),
  to: instant.optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export const erasureBody = z
  .object({ email: email.optional(), phone: z.string().min(3).max(64).optional() })
  .openapi("ErasureRequest");

export const redriveBody = z
  .object({
    submissionIds: z.array(id).min(1).max(1000).optional(),
    filter: z
      .object({
        keyId: id.optional(),
        kind: z.enum(["lead", "appointment"]).optional(),
        from: instant.optional(),
        to: instant.optional(),
      })
      .optional(),
    all: z.boolean().optional(),
    profileVersionId: id.optional(),
  })
  .openapi("RedriveRequest");
