import { z } from "@hono/zod-openapi";
import { utcTimestamp } from "../../../contract/appointment.js";
import { atMostChars } from "../../../contract/chars.js";
import { EVIDENCE_KINDS } from "../../db/schema/index.js";
import { checkScheduleTimes, scheduleFields } from "../jobs/job-schemas.js";
import { BLOCKER_CODES, POSTED_STATUSES } from "../jobs/transitions.js";

const version = z.number().int().min(1).openapi({ description: "the job version last read (§2.1)" });

/** §4.1, §8: `limit` 1 to 100, default 50; `cursor` the nextCursor of the previous page, or the start cursor `0`. */
export const feedQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, { message: "must be an integer from 1 to 100" })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: "must be at least 1" }).max(100, { message: "must be at most 100" }))
    .optional()
    .default(50)
    .openapi({ param: { name: "limit", in: "query" }, type: "integer", minimum: 1, maximum: 100, default: 50 }),
  cursor: z
    .string()
    .regex(/^(0|[1-9]\d{0,14})$/, { message: "is not a cursor of this feed" })
    .transform(Number)
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, type: "string", example: "0" }),
});

/** §4, §8: every Installer API POST and PUT; checked (400 when missing) before the body is read. */
export const idempotencyHeaders = z.object({
  "idempotency-key": z
    .string()
    .optional()
    .openapi({ param: { name: "idempotency-key", in: "header" }, example: "7f3c1e0a-2b4d-4c6e-8a9b-0c1d2e3f4a5b" }),
});

export const jobIdParamSchema = z.object({
  job_id: z.string().openapi({ param: { name: "job_id", in: "path" }, example: "job_0123456789abcdef0123" }),
});

export const documentIdParamSchema = z.object({
  doc_id: z.string().openapi({ param: { name: "doc_id", in: "path" }, example: "doc_0123456789abcdef0123" }),
});

export const documentLinkQuerySchema = z.object({
  expires: z.string().openapi({ param: { name: "expires", in: "query" } }),
  signature: z.string().openapi({ param: { name: "signature", in: "query" } }),
});

/** §2.3 status event; `blockerCode` exactly when the status is BLOCKED. The occurredAt window needs the clock. */
export const statusEventSchema = z
  .object({
    status: z.enum(POSTED_STATUSES),
    occurredAt: utcTimestamp,
    note: z
      .string()
      .refine((s) => atMostChars(s, 2000), { message: "must be at most 2000 characters" })
      .optional(),
    blockerCode: z.enum(BLOCKER_CODES).optional(),
    expectedVersion: version,
  })
  .superRefine((v, ctx) => {
    if (v.status === "BLOCKED" && v.blockerCode === undefined) {
      ctx.addIssue({ code: "custom", path: ["blockerCode"], message: "is required when status is BLOCKED" });
    }
    if (v.status !== "BLOCKED" && v.blockerCode !== undefined) {
      ctx.addIssue({ code: "custom", path: ["blockerCode"], message: "is allowed only when status is BLOCKED" });
    }
  })
  .openapi("InstallerStatusEvent");

/** §2.4 schedule write. */
export const scheduleWriteSchema = z
  .object({ ...scheduleFields, expectedVersion: version })
  .superRefine(checkScheduleTimes)
  .openapi("InstallerScheduleWrite");

/** §2.5 assignment write: at most 20 unique membership ids; the set replaces the old one; empty unassigns. */
export const assignmentWriteSchema = z
  .object({
    membershipIds: z
      .array(z.string().min(1).max(100))
      .max(20, { message: "must hold at most 20 membership ids" })
      .refine((ids) => new Set(ids).size === ids.length, { message: "must be unique" }),
    expectedVersion: version,
  })
  .openapi("InstallerAssignmentWrite");

/**
 * Completion evidence upload (§3.1 rule 4, §4.1 rule 8 not shown): one photo or document per request, its content as
 * base64 inside the §8 1 MB body.
 */
export const evidenceUploadSchema = z
  .object({
    kind: z.enum(EVIDENCE_KINDS),
    fileName: z.string().min(1).max(255),
    contentType: z.string().regex(/^[a-z]+\/[a-z0-9.+-]+$/i, { message: "must be a media type such as image/jpeg" }),
    contentBase64: z.base64().min(1, { message: "must not be empty" }),
  })
  .openapi("InstallerEvidenceUpload");

export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});

export const errorSchema = z.object({ error: z.string() }).openapi("InstallerError");

/** The §7 errors every Installer API route can answer. */
export const installerErrors = {
  400: json(errorSchema, "validation failed; the message names the field"),
  401: json(errorSchema, "key missing, malformed, unknown, revoked or not an installer-company key"),
  403: json(errorSchema, "key lacks the scope; the message names it"),
  404: json(errorSchema, "not visible to this key: not assigned to the caller's company now"),
  429: json(errorSchema, "rate limited; see retry-after and RateLimit"),
};

/** More §7 errors of writes (§4, §8 Idempotency-Key, §3.1 rules 1–2). */
export const writeErrors = {
  ...installerErrors,
  409: json(errorSchema, "stale expectedVersion (the message states the current one), or Idempotency-Key reused"),
  413: json(errorSchema, "body over 1 MB"),
  415: json(errorSchema, "body is not JSON"),
  422: json(errorSchema, "not allowed in the job's state (§3.1)"),
};
