import { z } from "@hono/zod-openapi";
import { id, timestamp } from "./common.schemas.js";

/** What the console's overview reads (D-230). */

/** Query shapes of the owner API's insight routes (the console's overview and keys pages). */
export const keyCountsQuery = z.object({
  hours: z.coerce.number().int().min(1).max(720).default(24),
  keyId: id.optional(),
});

export const seriesQuery = z.object({
  hours: z.coerce.number().int().min(1).max(720).default(24),
  bucketMinutes: z.coerce.number().int().min(1).max(1440).default(60),
});

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
