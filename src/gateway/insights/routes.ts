import type { OpenAPIHono } from "@hono/zod-openapi";
import type { GatewayContext } from "../context.js";
import type { OwnerEnv } from "../owner/owner-auth.js";
import { param, routeKit, valid } from "../owner/route-kit.js";
import { recentPayloads } from "../submissions/recent-payloads.js";
import { limiterHeadroom } from "./headroom.js";
import { countSubmissionsByKey } from "./key-counts.js";
import * as s from "./schemas.js";
import { submissionTimeSeries } from "./time-series.js";

const { route } = routeKit("/owner/v1", "owner");

/**
 * What the console's overview and keys pages read: counts, time series, limiter headroom, a key's recent payloads.
 * Owner auth comes from the owner routes' middleware (registered first); every verb is scoped to the caller's company.
 */
export function insightRoutes(app: OpenAPIHono<OwnerEnv>, ctx: GatewayContext): void {
  app.openapi(
    route("get", "/insights/key-counts", {
      summary: "Per key: accepted, forwarded and failed in the last hours",
      role: "viewer",
      ok: s.keyCounts,
      query: s.keyCountsQuery,
      errors: ["not_found"],
    }),
    async (c) => {
      const { hours, keyId } = valid(c, s.keyCountsQuery, "query");
      return c.json(await countSubmissionsByKey({ ctx, companyId: c.get("owner").companyId, hours, keyId }), 200);
    },
  );
  app.openapi(
    route("get", "/insights/series", {
      summary: "Accepted, forwarded, failed and forward latency over time",
      role: "viewer",
      ok: s.series,
      query: s.seriesQuery,
    }),
    async (c) => {
      const { hours, bucketMinutes } = valid(c, s.seriesQuery, "query");
      return c.json(
        await submissionTimeSeries({ ctx, companyId: c.get("owner").companyId, hours, bucketMinutes }),
        200,
      );
    },
  );
  app.openapi(
    route("get", "/insights/headroom", {
      summary: "Sends in the current window against each upstream limit",
      role: "viewer",
      ok: s.headroom,
    }),
    async (c) => c.json(await limiterHeadroom({ ctx, companyId: c.get("owner").companyId }), 200),
  );
  app.openapi(
    route("get", "/keys/{keyId}/payloads", {
      summary: "A key's latest raw payloads (for the profile editor)",
      role: "viewer",
      ok: s.recentPayloads,
      query: s.recentPayloadsQuery,
    }),
    async (c) => {
      const { kind, limit } = valid(c, s.recentPayloadsQuery, "query");
      const payloads = await recentPayloads({
        ctx,
        companyId: c.get("owner").companyId,
        keyId: param(c, "keyId"),
        kind,
        limit,
      });
      return c.json({ payloads }, 200);
    },
  );
}
