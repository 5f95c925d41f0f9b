import type { OpenAPIHono } from "@hono/zod-openapi";
import { param, routeKit, valid } from "../../http/route-kit.js";
import type { GatewayContext } from "../context.js";
import type { OwnerEnv } from "../owner/owner-auth.js";
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
    route("get", "/insights/key-counts", "Per key: accepted, forwarded and failed in the last hours", s.keyCountsQuery),
    async (c) => {
      const { hours, keyId } = valid(c, s.keyCountsQuery, "query");
      return c.json(await countSubmissionsByKey({ ctx, companyId: c.get("owner").companyId, hours, keyId }), 200);
    },
  );
  app.openapi(
    route("get", "/insights/series", "Accepted, forwarded, failed and forward latency over time", s.seriesQuery),
    async (c) => {
      const { hours, bucketMinutes } = valid(c, s.seriesQuery, "query");
      return c.json(
        await submissionTimeSeries({ ctx, companyId: c.get("owner").companyId, hours, bucketMinutes }),
        200,
      );
    },
  );
  app.openapi(
    route("get", "/insights/headroom", "Sends in the current window against each upstream limit"),
    async (c) => c.json(await limiterHeadroom({ ctx, companyId: c.get("owner").companyId }), 200),
  );
  app.openapi(
    route(
      "get",
      "/keys/{keyId}/payloads",
      "A key's latest raw payloads (for the profile editor)",
      s.recentPayloadsQuery,
    ),
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
