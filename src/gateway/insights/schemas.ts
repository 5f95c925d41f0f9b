import { z } from "@hono/zod-openapi";
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
