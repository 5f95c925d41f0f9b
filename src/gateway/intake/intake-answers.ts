import { z } from "@hono/zod-openapi";
import type { ZodType } from "zod";
import { appointmentResultSchema } from "../../contract/appointment.js";
import { leadResultSchema } from "../../contract/lead.js";
import { MAX_BODY_BYTES } from "../../http/json-body.js";
import { MAX_JSON_DEPTH } from "../../http/json-depth.js";
import { MAX_WAIT_SECONDS, SYNC_MODE_WAIT_SECONDS } from "./prefer-wait.js";

/**
 * Every answer a vendor can get from the intake paths (§4.2, §7; D-327): one catalogue that the OpenAPI document
 * declares (routes.ts) and each key's posting docs list (docs/owner-api.md, "Posting docs"). A test drives the intake
 * to each answer it can reach and checks the body against the schema declared here.
 */

/** §7's error body: `error` and the additive fields the intake sets on some errors (none carries a `code`). */
export const intakeError = z
  .strictObject({
    error: z.string(),
    /** The canonical field a 400 is about (§2.7/§2.8), and the vendor's field that fed it when the profile says so. */
    field: z.string().optional(),
    sourcePath: z.string().optional(),
    /** The scope a key lacks (403). */
    scope: z.string().optional(),
    /** The profile version whose mapping failed or stopped (400, 422). */
    profileVersionId: z.string().optional(),
    /** Where in the profile's expression a mapping failed (400). */
    position: z.number().int().optional(),
    /** The submission an idempotency key names (409), or that a waited-for request made (a sync answer's error). */
    submissionId: z.string().optional(),
    /** Why the database refused (503 of an outage: `unreachable`, `full`, `read_only`). */
    reason: z.string().optional(),
    /** The nesting limit a body went past (400). */
    maxDepth: z.number().int().optional(),
  })
  .openapi("IntakeError");

/** A submission as its key sees it (`GET /api/inbound/submissions/{submissionId}`, and a replay's 200). */
export const submissionStatus = z
  .strictObject({
    submissionId: z.string(),
    kind: z.enum(["lead", "appointment"]),
    status: z.enum(["queued", "waiting", "forwarding", "forwarded", "failed", "held", "fetching", "noted"]),
    attempts: z.number().int(),
    waitingReason: z.string().nullable(),
    lastError: z.string().nullable(),
    upstreamStatus: z.number().int().nullable(),
    /** The platform's answer once forwarded (§2.7/§2.8 results), passed through. */
    result: z.record(z.string(), z.unknown()).nullable(),
    profileVersionId: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("SubmissionStatus");

export const acceptedSubmission = z
  .strictObject({ submissionId: z.string(), status: z.literal("queued") })
  .openapi("AcceptedSubmission");

export type IntakeOperation = "lead" | "appointment" | "status";

/** What the vendor should do next. */
export type Retry = "no" | "after retry-after" | "with backoff" | "poll the status";

export interface IntakeAnswer {
  status: number;
  /** When the intake gives it, for the vendor. */
  when: string;
  retry: Retry;
  /** Headers the answer carries that the vendor acts on. */
  headers?: readonly string[];
  /** Given only to a request that waits for the platform (`Prefer: wait=N`, or a key in sync mode). */
  waited?: boolean;
  /** The operations that can give it. */
  operations: readonly IntakeOperation[];
  body: (operation: IntakeOperation) => ZodType;
}

const SUBMIT: readonly IntakeOperation[] = ["lead", "appointment"];
const ALL: readonly IntakeOperation[] = ["lead", "appointment", "status"];
const error = () => intakeError;
const platformResult = (operation: IntakeOperation) =>
  operation === "appointment" ? appointmentResultSchema : leadResultSchema;

export const INTAKE_ANSWERS: readonly IntakeAnswer[] = [
  {
    status: 202,
    when: "accepted and stored; it is forwarded to the platform in the background. `Location` names the submission",
    retry: "poll the status",
    headers: ["location", "x-submission-id"],
    operations: SUBMIT,
    body: () => acceptedSubmission,
  },
  {
    status: 200,
    when: "submit: a repeat of an earlier request with the same idempotency key and payload (the submission as it is now), or the platform's answer to a waited-for request; status: the submission",
    retry: "no",
    operations: ALL,
    body: (operation) =>
      operation === "status" ? submissionStatus : z.union([submissionStatus, platformResult(operation)]),
  },
  {
    status: 201,
    when: `the platform's answer to a waited-for request (\`Prefer: wait=N\`, N up to ${MAX_WAIT_SECONDS}; a key in sync mode waits ${SYNC_MODE_WAIT_SECONDS} s): created`,
    retry: "no",
    waited: true,
    operations: SUBMIT,
    body: platformResult,
  },
  {
    status: 400,
    when: `the body, once mapped, breaks a rule of the record (\`field\` names it, \`sourcePath\` the field you sent when known); the JSON is malformed or nests deeper than ${MAX_JSON_DEPTH} levels; the mapping failed on this payload; a malformed Idempotency-Key`,
    retry: "no",
    operations: SUBMIT,
    body: error,
  },
  {
    status: 401,
    when: "the x-api-key header is missing, malformed, unknown, revoked or of the other environment",
    retry: "no",
    operations: ALL,
    body: error,
  },
  {
    status: 403,
    when: "the key lacks the scope of this path (`scope` names it)",
    retry: "no",
    operations: SUBMIT,
    body: error,
  },
  {
    status: 404,
    when: "submit: an appointment's `leadId` names no lead submission of this key; status: not one of this key's submissions",
    retry: "no",
    operations: ALL,
    body: error,
  },
  {
    status: 409,
    when: "the idempotency key was used before with a different payload (`submissionId` names the first)",
    retry: "no",
    operations: SUBMIT,
    body: error,
  },
  {
    status: 413,
    when: `the body is over ${MAX_BODY_BYTES} bytes`,
    retry: "no",
    operations: SUBMIT,
    body: error,
  },
  {
    status: 415,
    when: "the body is not `application/json`",
    retry: "no",
    operations: SUBMIT,
    body: error,
  },
  {
    status: 422,
    when: "the company's mapping profile stopped on this payload (a time, depth or size guardrail); the owner is told",
    retry: "no",
    operations: SUBMIT,
    body: error,
  },
  {
    status: 429,
    when: "the key's intake rate is spent",
    retry: "after retry-after",
    headers: ["retry-after"],
    operations: ALL,
    body: error,
  },
  {
    status: 500,
    when: "a fault of the gateway",
    retry: "with backoff",
    operations: ALL,
    body: error,
  },
  {
    status: 502,
    when: "a waited-for request the platform failed (an answer of the platform's other than 4xx; a 4xx of the platform is answered with its own status and `submissionId`)",
    retry: "poll the status",
    waited: true,
    operations: SUBMIT,
    body: error,
  },
  {
    status: 503,
    when: "the gateway cannot take it now (its database is unreachable or full, or profile evaluation is busy): nothing was stored",
    retry: "after retry-after",
    headers: ["retry-after"],
    operations: ALL,
    body: error,
  },
];

/** The answers of one operation, in status order. */
export function answersOf(operation: IntakeOperation): IntakeAnswer[] {
  return INTAKE_ANSWERS.filter((answer) => answer.operations.includes(operation)).sort((a, b) => a.status - b.status);
}
