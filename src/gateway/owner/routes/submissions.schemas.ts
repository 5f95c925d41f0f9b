import { z } from "@hono/zod-openapi";
import { id, instant, json, timestamp } from "./common.schemas.js";

/** The submission log and the dead letter (D-230). */

/** A submission's states: forwarding's, and a hook connection's (held, fetching, noted; docs/connections.md). */
const submissionStatus = z.enum([
  "queued",
  "waiting",
  "forwarding",
  "forwarded",
  "failed",
  "held",
  "fetching",
  "noted",
]);

export const submissionQuery = z.object({
  status: submissionStatus.optional(),
  keyId: id.optional(),
  connectionId: id.optional(),
  kind: z.enum(["lead", "appointment"]).optional(),
  from: instant.optional(),
  to: instant.optional(),
  /** A person's e-mail, any case and spacing (D-319). */
  email: z.string().min(1).max(254).optional(),
  /** A person's phone, as written: its digits are compared (D-319). */
  phone: z.string().min(1).max(64).optional(),
  /** Text in the submission's extras, any case (D-320). */
  extras: z.string().min(1).max(200).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const redriveBody = z
  .object({
    /** `failed` (the dead letter, the default) or `held`: hook payloads to map again after a profile fix (D-308). */
    status: z.enum(["failed", "held"]).optional(),
    submissionIds: z.array(id).min(1).max(1000).optional(),
    filter: z
      .object({
        keyId: id.optional(),
        connectionId: id.optional(),
        kind: z.enum(["lead", "appointment"]).optional(),
        from: instant.optional(),
        to: instant.optional(),
      })
      .optional(),
    all: z.boolean().optional(),
    profileVersionId: id.optional(),
  })
  .openapi("RedriveRequest");

const submissionFields = {
  submissionId: z.string(),
  kind: z.enum(["lead", "appointment"]),
  status: submissionStatus,
  attempts: z.number().int(),
  waitingReason: z.string().nullable(),
  lastError: z.string().nullable(),
  upstreamStatus: z.number().int().nullable(),
  result: z.record(z.string(), json).nullable(),
  profileVersionId: z.string().nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
  vendorKeyId: z.string(),
  /** The hook connection it came through; null for a vendor key's own requests. */
  connectionId: z.string().nullable(),
  /** The vendor's own id of the record (a hook's), its idempotency. */
  vendorRecordId: z.string().nullable(),
  /** A vendor's change to a booking the Inbound API cannot express. */
  recordAction: z.enum(["reschedule", "cancel"]).nullable(),
  /** A vendor's test record: never forwarded to a live platform. */
  test: z.boolean(),
  /** Why a held submission is held. */
  heldReason: z.string().nullable(),
  /** What a noted submission is. */
  note: z.string().nullable(),
  /** Who a lead is about: the name, the e-mail and phone masked (D-318); null for an appointment or once erased. */
  person: z
    .strictObject({ name: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable() })
    .nullable(),
  /** The vendor's other details the profile kept apart (D-320): never sent upstream. */
  extras: z.record(z.string(), json).nullable(),
};

/** A row of the log: the list's rows and the live stream's `submission` events (D-235). */
export const submissionSummary = z.strictObject(submissionFields).openapi("SubmissionSummary");

export const submissionPage = z
  .strictObject({
    submissions: z.array(submissionSummary),
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

export const redrive = z
  .strictObject({
    redriven: z.number().int(),
    remapped: z.number().int(),
    /** Submissions made beside re-mapped held payloads (their second and later records); 0 for failed ones. */
    created: z.number().int(),
    skipped: z.array(z.strictObject({ submissionId: z.string(), reason: z.string() })),
  })
  .openapi("Redrive");
