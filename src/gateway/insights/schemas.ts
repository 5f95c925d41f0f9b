import { z } from "@hono/zod-openapi";
import { timestamp } from "../owner/answers.js";
import { id } from "../owner/schemas.js";

/** Query shapes of the owner API's insight routes (the console's overview and keys pages). */
export const keyCountsQuery = z.object({
  hours: z.coerce.number().int().min(1).max(720).default(24),
  keyId: id.optional(),
});
export const seriesQuery = z.object({
  hours: z.coerce.number().int().min(1).max(720).default(24),
  bucketMinutes: z.coerce.number().int().min(1).max(1440).default(60),
});
export const recentPayloadsQuery = z.object({
  kind: z.enum(["lead", "appointment"]).optional(),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});

// What the insight routes answer (D-230).
const count = z.number().int();
export const keyCounts = z
  .strictObject({
    since: timestamp,
    hours: count,
    keys: z.array(z.strictObject({ keyId: z.string(), accepted: count, forwarded: count, failed: count })),
  })
  .openapi("KeyCounts");
export const series = z
  .strictObject({
    from: timestamp,
    to: timestamp,
    bucketMinutes: count,
    buckets: z.array(
      z.strictObject({
        at: timestamp,
        accepted: count,
        forwarded: count,
        failed: count,
        latencyP50Ms: z.number().nullable(),
        latencyP95Ms: z.number().nullable(),
      }),
    ),
  })
  .openapi("SubmissionSeries");
const level = { used: count, limit: count, windowMs: count };
export const headroom = z
  .strictObject({
    at: timestamp,
    credentials: z.array(z.strictObject({ credentialId: z.string(), name: z.string(), ...level })),
    company: z.strictObject(level),
    egress: z.strictObject(level),
  })
  .openapi("LimiterHeadroom");
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
