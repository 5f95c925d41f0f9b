import type { Queue } from "bullmq";
import { newApp } from "../http/app.js";
import { declaredBodyLimit, MAX_ROUTE_BODY_BYTES } from "../http/body-limit.js";
import { healthRoutes, type OpsAccess, type ReadinessCheck } from "../http/health.js";
import type { HttpMetrics } from "../http/metrics.js";
import { packageVersion } from "../version.js";
import type { GatewayApp, GatewayVariables } from "./app-env.js";
import { hookRoutes, maskHookPath } from "./connections/routes.js";
import { mountQueueDashboard } from "./console/queue-dashboard.js";
import { consoleRoutes } from "./console/routes.js";
import type { GatewayContext } from "./context.js";
import { DOCS_HEADERS, DOCS_PAGE } from "./docs/docs-page.js";
import { intakeRoutes } from "./intake/routes.js";
import { outageCause } from "./outage/index.js";
import { ownerApi } from "./owner/routes/index.js";
import { platformReceiverRoute } from "./webhooks/index.js";

/** The gateway's HTTP surface: vendor intake, owner API, docs, health. */
export function createGatewayApp(
  ctx: GatewayContext,
  options: {
    metrics?: HttpMetrics;
    checks?: Record<string, ReadinessCheck>;
    /** Redis mode: bull-board over these queues at /console/queues, for the operator's admins only. */
    queueDashboard?: { queues: Queue[]; operatorCompanyId: string };
    /** Who sees /metrics and readiness details here (default: everyone). */
    ops?: OpsAccess;
  } = {},
) {
  const app: GatewayApp = newApp<GatewayVariables>({
    log: ctx.log,
    metrics: options.metrics,
    // The owner API's error bodies carry a code and the request id (D-231); intake's are §7's exactly.
    codedErrors: (path) => path.startsWith("/owner/v1/"),
    maskPath: maskHookPath,
  });
  // Every route declares its own body limit where it is registered; nothing anywhere takes more than this.
  app.use(declaredBodyLimit(MAX_ROUTE_BODY_BYTES));
  app.route(
    "/",
    healthRoutes({ metrics: options.metrics, checks: readinessChecks(ctx, options.checks), access: options.ops }),
  );
  intakeRoutes(app, ctx);
  const hooks = hookRoutes(app, ctx);
  ownerApi(app, ctx);
  platformReceiverRoute(app, ctx);
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "partner-gateway",
      version: packageVersion,
      description:
        "Vendor intake on the Inbound API's paths (x-api-key: a gateway vendor key) and the owner API (bearer token or session cookie).",
    },
  });
  app.get("/docs", (c) => c.html(DOCS_PAGE, 200, DOCS_HEADERS));
  if (options.queueDashboard) mountQueueDashboard(app, ctx, options.queueDashboard);
  consoleRoutes(app);
  return Object.assign(app, { closeHooks: () => hooks.close() });
}

/** How long readiness waits for the database's answer: a load balancer's check must not hang on a partition. */
export const READINESS_PING_MS = 2_000;

/**
 * What readiness checks (D-333): the database answers within READINESS_PING_MS (on SQLite: its file can be written,
 * the disk has room), and no loop of this process is waiting out a database outage (with which loop, since when, why).
 * Redis's outages show in the details and the metrics but keep a process ready: intake commits to the database alone.
 */
export function readinessChecks(
  ctx: GatewayContext,
  extra: Record<string, ReadinessCheck> = {},
): Record<string, ReadinessCheck> {
  return {
    db: () => pingWithin(ctx, READINESS_PING_MS),
    outages: () => {
      const waiting = ctx.outages.current.filter((outage) => outage.store === "database");
      if (waiting.length === 0) return;
      const since = Math.min(...waiting.map((outage) => outage.since));
      const loops = waiting.map((outage) => `${outage.loop} (${outage.reason})`).join(", ");
      throw new Error(`waiting for the database since ${new Date(since).toISOString()}: ${loops}`);
    },
    ...extra,
  };
}

async function pingWithin(ctx: GatewayContext, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([ctx.ping(), late]);
  } catch (error) {
    // The reason an operator can act on, never the driver's whole error.
    const cause = outageCause(error);
    throw cause ? new Error(`${cause.reason}: ${cause.message}`) : error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The separate operations listener (`OPS_PORT`): health, version, readiness with its details and `/metrics`, and
 * nothing else — for a network the public cannot reach (docs/configuration.md, "Operational endpoints").
 */
export function createOpsApp(ctx: GatewayContext, options: { metrics?: HttpMetrics; token?: string | undefined }) {
  const app = newApp({ log: ctx.log });
  app.route(
    "/",
    healthRoutes({
      metrics: options.metrics,
      checks: readinessChecks(ctx),
      access: { details: true, token: options.token },
    }),
  );
  return app;
}
