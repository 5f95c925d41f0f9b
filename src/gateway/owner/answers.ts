import { z } from "@hono/zod-openapi";
import { ERROR_CODE_LIST } from "../../http/error-codes.js";
import { sampleSchema } from "./schemas.js";

/**
 * What the owner API answers (D-230): strict shapes, one named component each, written from the service verbs' return
 * values. Payloads and canonical bodies are the vendor's and the profile's JSON, so they alone are open (`unknown`).
 */

/** An instant as the gateway writes it (`Date#toISOString`). */
export const timestamp = z.iso.datetime();
const json = z.unknown();

/** Where a compile error is: 1-based line and column of the offending token's end, and its offset. */
const compileError = {
  message: z.string(),
  position: z.number().int().optional(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
};

const guardrailLimit = z.enum(["time", "stack", "sequence", "regex", "memory", "output", "deadline", "crash"]);

/** What one evaluation of a profile produced (a mapped body, or why not), with its time. */
export const mappingOutcome = z
  .union([
    z.strictObject({ ok: z.literal(true), body: json, elapsedMs: z.number() }),
    z.strictObject({
      ok: z.literal(false),
      kind: z.literal("validation"),
      field: z.string(),
      message: z.string(),
      sourcePath: z.string().optional(),
      output: json,
      elapsedMs: z.number(),
    }),
    z.strictObject({
      ok: z.literal(false),
      kind: z.literal("mapping"),
      message: z.string(),
      position: z.number().int().optional(),
      elapsedMs: z.number(),
    }),
    z.strictObject({
      ok: z.literal(false),
      kind: z.literal("guardrail"),
      limit: guardrailLimit,
      message: z.string(),
      elapsedMs: z.number(),
    }),
  ])
  .openapi("MappingOutcome");

export const previewAnswer = z
  .union([mappingOutcome, z.strictObject({ ok: z.literal(false), kind: z.literal("compile"), ...compileError })])
  .openapi("PreviewAnswer");

export const goldenReport = z
  .strictObject({
    passed: z.boolean(),
    total: z.number().int(),
    failed: z.number().int(),
    results: z.array(
      z.strictObject({
        name: z.string(),
        passed: z.boolean(),
        reason: z.string().optional(),
        diff: z.array(z.strictObject({ path: z.string(), expected: json, actual: json })),
        outcome: mappingOutcome,
      }),
    ),
    compileError: z.strictObject(compileError).optional(),
  })
  .openapi("GoldenReport");

/**
 * Every error of the owner API (§7 plus D-231): the message, a code from the closed list (docs/owner-api.md), the
 * request's id, and the additive fields some errors carry.
 */
export const ownerError = z
  .strictObject({
    error: z.string(),
    code: z.enum(ERROR_CODE_LIST),
    requestId: z.string(),
    /** The offending field of a 400 or 409. */
    field: z.string().optional(),
    /** Why a URL or a redelivery was refused. */
    reason: z.string().nullable().optional(),
    /** The nesting limit a body went past. */
    maxDepth: z.number().int().optional(),
    /** The profile whose name a new one repeats (409). */
    profileId: z.string().optional(),
    /** The golden samples that keep a version from being published (422). */
    samples: goldenReport.optional(),
    /** Where an expression fails to compile (400). */
    message: z.string().optional(),
    position: z.number().int().optional(),
    line: z.number().int().optional(),
    column: z.number().int().optional(),
  })
  .openapi("OwnerError");

// Sessions and tokens.
const role = z.enum(["admin", "viewer"]);
export const principal = z
  .strictObject({
    ownerId: z.string(),
    companyId: z.string(),
    role,
    email: z.string(),
    tokenId: z.string(),
    kind: z.enum(["session", "token"]),
  })
  .openapi("OwnerPrincipal");
export const signedIn = z
  .strictObject({
    owner: z.strictObject({ id: z.string(), email: z.string(), name: z.string(), role }),
    csrfToken: z.string(),
  })
  .openapi("SignedIn");
export const currentSession = z
  .strictObject({ owner: principal, csrfToken: z.string().nullable(), operator: z.boolean() })
  .openapi("CurrentSession");
export const signedOut = z.strictObject({ signedOut: z.literal(true) }).openapi("SignedOut");
const tokenView = z
  .strictObject({
    id: z.string(),
    name: z.string().nullable(),
    createdAt: timestamp,
    expiresAt: timestamp.nullable(),
    lastUsedAt: timestamp.nullable(),
  })
  .openapi("OwnerToken");
export const tokenList = z.strictObject({ tokens: z.array(tokenView) }).openapi("OwnerTokenList");
export const createdToken = z
  .strictObject({ id: z.string(), name: z.string(), token: z.string(), expiresAt: timestamp.nullable() })
  .openapi("CreatedOwnerToken");
export const revoked = z.strictObject({ revoked: z.literal(true) }).openapi("Revoked");

// Upstream credentials and vendor keys.
export const credential = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    keyPrefix: z.string(),
    version: z.number().int(),
    status: z.enum(["active", "paused"]),
    pausedReason: z.string().nullable(),
    createdAt: timestamp,
    rotatedAt: timestamp.nullable(),
  })
  .openapi("UpstreamCredential");
export const credentialList = z.strictObject({ credentials: z.array(credential) }).openapi("UpstreamCredentialList");

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

// Profiles.
const profileFields = {
  id: z.string(),
  companyId: z.string(),
  name: z.string(),
  kind: z.enum(["lead", "appointment", "outbound"]),
  description: z.string().nullable(),
  createdAt: timestamp,
};
export const profile = z.strictObject(profileFields).openapi("Profile");
export const profileVersion = z
  .strictObject({
    id: z.string(),
    profileId: z.string(),
    version: z.number().int(),
    expression: z.string(),
    samples: z.array(sampleSchema),
    status: z.enum(["draft", "published"]),
    samplesPassed: z.boolean(),
    createdAt: timestamp,
    publishedAt: timestamp.nullable(),
  })
  .openapi("ProfileVersion");
export const profileList = z
  .strictObject({
    profiles: z.array(
      z.strictObject({ ...profileFields, latestVersion: profileVersion.nullable(), boundKeys: z.array(z.string()) }),
    ),
  })
  .openapi("ProfileList");
export const versionList = z.strictObject({ versions: z.array(profileVersion) }).openapi("ProfileVersionList");
export const savedVersion = z
  .strictObject({ version: profileVersion, samples: goldenReport })
  .openapi("SavedProfileVersion");
export const rollback = z
  .strictObject({ profileId: z.string(), versionId: z.string(), reboundKeys: z.array(z.string()) })
  .openapi("ProfileRollback");
export const replay = z
  .strictObject({
    replayed: z.number().int(),
    changed: z.number().int(),
    results: z.array(
      z.strictObject({
        submissionId: z.string(),
        profileVersionId: z.string().nullable(),
        outcome: mappingOutcome,
        changes: z.array(z.strictObject({ field: z.string(), before: json, after: json })),
      }),
    ),
  })
  .openapi("ProfileReplay");

// Submissions, mapping failures, redrive, erasure.
const submissionFields = {
  submissionId: z.string(),
  kind: z.enum(["lead", "appointment"]),
  status: z.enum(["queued", "waiting", "forwarding", "forwarded", "failed"]),
  attempts: z.number().int(),
  waitingReason: z.string().nullable(),
  lastError: z.string().nullable(),
  upstreamStatus: z.number().int().nullable(),
  result: z.record(z.string(), json).nullable(),
  profileVersionId: z.string().nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
  vendorKeyId: z.string(),
};
export const submissionPage = z
  .strictObject({
    submissions: z.array(z.strictObject(submissionFields).openapi("SubmissionSummary")),
    nextCursor: z.string().nullable(),
  })
  .openapi("SubmissionPage");
export const submissionDetail = z
  .strictObject({
    ...submissionFields,
    credentialId: z.string(),
    rawPayload: json,
    canonicalBody: z.record(z.string(), json).nullable(),
    idempotencyKey: z.string().nullable(),
    upstreamIdempotencyKey: z.string().nullable(),
    purgedAt: timestamp.nullable(),
    attemptsTimeline: z.array(
      z.strictObject({
        id: z.string(),
        submissionId: z.string(),
        attempt: z.number().int(),
        counted: z.boolean(),
        startedAt: timestamp,
        status: z.number().int().nullable(),
        error: z.string().nullable(),
        latencyMs: z.number().int(),
        upstreamRequestId: z.string().nullable(),
        upstreamApiVersion: z.string().nullable(),
        idempotencyKey: z.string().nullable(),
      }),
    ),
  })
  .openapi("SubmissionDetail");
export const mappingFailures = z
  .strictObject({
    failures: z.array(
      z.strictObject({
        id: z.string(),
        companyId: z.string(),
        vendorKeyId: z.string(),
        profileVersionId: z.string(),
        message: z.string(),
        rawPayload: json,
        createdAt: timestamp,
      }),
    ),
  })
  .openapi("MappingFailureList");
export const redrive = z
  .strictObject({
    redriven: z.number().int(),
    remapped: z.number().int(),
    skipped: z.array(z.strictObject({ submissionId: z.string(), reason: z.string() })),
  })
  .openapi("Redrive");
export const erasure = z
  .strictObject({
    erased: z.number().int(),
    appointments: z.number().int(),
    mappingFailures: z.number().int(),
    samples: z.number().int(),
    webhookEvents: z.number().int(),
    pendingDeliveries: z.number().int(),
    platformEvents: z.number().int(),
    walTruncated: z.boolean(),
  })
  .openapi("Erasure");
