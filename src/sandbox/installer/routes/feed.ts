import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { authorize } from "../../auth/authorize.js";
import { callerCtx, type SandboxEnv } from "../../env.js";
import { JSON_TYPE } from "../idempotency/idempotent.js";
import { encodeFeedPage } from "../services/feed-body.js";
import { readFeed } from "../services/read-feed.js";
import { feedQuerySchema, installerErrors } from "./schemas.js";

const route = createRoute({
  method: "get",
  path: "/api/partner/v1/jobs",
  summary: "The change feed of jobs assigned to the caller's company (§2.2, §4.1)",
  middleware: [authorize("installer-company", "jobs:read")] as const,
  request: { query: feedQuerySchema },
  responses: {
    200: { description: "{apiVersion, resources: [{sequence, changedAt, resource}], nextCursor, hasMore}" },
    ...installerErrors,
  },
});

export function feedRoutes(app: OpenAPIHono<SandboxEnv>): void {
  app.openapi(route, (c) => {
    const page = readFeed({ ctx: callerCtx(c), input: c.req.valid("query") });
    return c.body(encodeFeedPage(page), 200, JSON_TYPE);
  });
}
