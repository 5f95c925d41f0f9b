import type { Queue } from "bullmq";
import { newApp } from "../http/app.js";
import { declaredBodyLimit, MAX_ROUTE_BODY_BYTES } from "../http/body-limit.js";
import { healthRoutes } from "../http/health.js";
import type { HttpMetrics } from "../http/metrics.js";
import { packageVersion } from "../version.js";
import { mountQueueDashboard } from "./console/queue-dashboard.js";
import { consoleRoutes } from "./console/routes.js";
import type { GatewayContext } from "./context.js";
import { docsPage } from "./docs/docs-page.js";
import { insightRoutes } from "./insights/routes.js";
import { type IntakeEnv, intakeRoutes } from "./intake/routes.js";
import type { OwnerEnv } from "./owner/owner-auth.js";
import { ownerRoutes } from "./owner/routes.js";
import { webhookRoutes } from "./webhooks/index.js";

/** The gateway's HTTP surface: vendor intake, owner API, docs, health. */
export function createGatewayApp(
  ctx: GatewayContext,
  options: {
    metrics?: HttpMetrics;
    checks?: Record<string, () => void | Promise<void>>;
    /** Redis mode: bull-board over these queues at /console/queues, for the operator's admins only. */
    queueDashboard?: { queues: Queue[]; operatorCompanyId: string };
  } = {},
) {
  const app = newApp<IntakeEnv["Variables"] & OwnerEnv["Variables"]>({ log: ctx.log, metrics: options.metrics });
  // Every route declares its own body limit where it is registered; nothing anywhere takes more than this.
  app.use(declaredBodyLimit(MAX_ROUTE_BODY_BYTES));
  app.route(
    "/",
    healthRoutes({
      metrics: options.metrics,
      checks: {
        db: () => {
          ctx.sqlite.prepare("select 1").get();
        },
        ...options.checks,
      },
    }),
  );
  intakeRoutes(app as never, ctx);
  ownerRoutes(app as never, ctx);
  insightRoutes(app as never, ctx);
  webhookRoutes(app as never, ctx);
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "partner-gateway",
      version: packageVersion,
      description:
        "Vendor intake on the Inbound API's paths (x-api-key: a gateway vendor key) and the owner API (bearer token or session cookie).",
    },
  });
  app.get("/docs", (c) => c.html(docsPage()));
  if (options.queueDashboard) mountQueueDashboard(app as never, ctx, options.queueDashboard);
  consoleRoutes(app as never);
  return app;
}
