import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { limiterHeadroom } from "../../insights/headroom.js";
import { countSubmissionsByKey } from "../../insights/key-counts.js";
import { submissionTimeSeries } from "../../insights/time-series.js";
import { routeKit, valid } from "../route-kit.js";
import * as s from "./insights.schemas.js";

const { route } = routeKit("/owner/v1", "owner");

/** What the console's overview reads: counts, time series, limiter headroom. */
export function insightRoutes(app: GatewayApp, ctx: GatewayContext): void {
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
}
