import type { OpenAPIHono } from "@hono/zod-openapi";
import { API_VERSION, API_VERSION_HEADER } from "../contract/api-version.js";
import { newApp } from "../http/app.js";
import { healthRoutes } from "../http/health.js";
import type { HttpMetrics } from "../http/metrics.js";
import type { Logger } from "../log.js";
import { adminRoutes } from "./admin/routes/index.js";
import type { SandboxAdmin } from "./admin/sandbox-admin.js";
import type { SandboxEnv, SandboxVariables } from "./env.js";
import { faultMiddleware } from "./faults/fault-middleware.js";
import { appointmentRoutes } from "./inbound/routes/appointments.js";
import { jobRoutes } from "./inbound/routes/jobs.js";
import { leadRoutes } from "./inbound/routes/leads.js";
import { type InstallerDeps, installerRoutes } from "./installer/routes/index.js";
import { apiGuard } from "./limits/api-guard.js";
import { healthGuard } from "./limits/health-guard.js";
import { type ConsoleDeps, consoleRoutes } from "./webhooks/routes/index.js";

export interface SandboxAppDeps {
  log: Logger;
  metrics: HttpMetrics;
  admin: SandboxAdmin;
  adminToken: string;
  /** The webhook console (§4.3): delivery settings and the dispatcher's wake-up. */
  webhooks: ConsoleDeps;
  /** The Installer API's Idempotency-Keys in flight (§8). */
  installer: InstallerDeps;
  ready: () => void;
}

/**
 * The sandbox's HTTP surface: health/version (§8 health limit), the Inbound API (§4.2) and the Installer API v1
 * (§4.1), each behind faults, the guard (§5 keys + §8 limits) and per-route kind/scope checks, the webhook console
 * (§4.3, owner sessions) and the admin API. Every response carries `x-svc-api-version` (§9.1) and `x-request-id` (§7).
 */
export function buildSandboxApp(deps: SandboxAppDeps): OpenAPIHono<SandboxEnv> {
  const { admin } = deps;
  const app = newApp<SandboxVariables>({
    log: deps.log,
    metrics: deps.metrics,
    responseHeaders: { [API_VERSION_HEADER]: API_VERSION },
  });
  app.use("*", async (c, next) => {
    c.set("ctx", admin.ctx);
    await next();
  });

  const limits = { limiter: admin.limiter, stats: admin.traffic };
  app.use("/health/*", healthGuard(limits));
  app.use("/version", healthGuard(limits));
  app.route("/", healthRoutes({ checks: { db: deps.ready }, metrics: deps.metrics }));

  app.use("/api/inbound/*", faultMiddleware({ faults: admin.faults, stats: admin.traffic }));
  app.use("/api/inbound/*", apiGuard(limits, { networkGuard: true }));
  // A booking queues its appointment.booked deliveries in its transaction: send them now, not at the next poll.
  app.use("/api/inbound/appointments", async (_c, next) => {
    await next();
    deps.webhooks.wake();
  });
  leadRoutes(app);
  appointmentRoutes(app);
  jobRoutes(app);

  // §8: the Installer API has the per-key and per-owner limits; the per-IP network guard is the Inbound API's.
  app.use("/api/partner/v1/*", faultMiddleware({ faults: admin.faults, stats: admin.traffic }));
  app.use("/api/partner/v1/*", apiGuard(limits, { networkGuard: false }));
  // Writes queue their install.* deliveries in their transaction: send them now.
  app.use("/api/partner/v1/*", async (c, next) => {
    await next();
    if (c.req.method !== "GET") deps.webhooks.wake();
  });
  installerRoutes(app, deps.installer);

  consoleRoutes(app, deps.webhooks);
  adminRoutes(app, admin, deps.adminToken);
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "Sandbox Inbound API and Installer API v1", version: API_VERSION },
  });
  return app;
}
