import { Hono } from "hono";
import { API_VERSION } from "../contract/api-version.js";
import { packageVersion } from "../version.js";
import type { HttpMetrics } from "./metrics.js";

export type ReadinessCheck = () => Promise<void> | void;

/**
 * Health, version and metrics (paths not shown by the spec, §4.1 rule 9; chosen in docs/decisions.md):
 * `GET /health/live` (the process answers), `GET /health/ready` (every dependency answers), `GET /version`,
 * `GET /metrics` (Prometheus text format).
 */
export function healthRoutes(options: { checks?: Record<string, ReadinessCheck>; metrics?: HttpMetrics }): Hono {
  const app = new Hono();
  app.get("/health/live", (c) => c.json({ status: "ok" }));
  app.get("/health/ready", async (c) => {
    const results: Record<string, string> = {};
    let ready = true;
    for (const [name, check] of Object.entries(options.checks ?? {})) {
      try {
        await check();
        results[name] = "ok";
      } catch (error) {
        ready = false;
        results[name] = error instanceof Error ? error.message : "failed";
      }
    }
    return c.json({ status: ready ? "ok" : "unavailable", checks: results }, ready ? 200 : 503);
  });
  app.get("/version", (c) => c.json({ version: packageVersion, apiVersion: API_VERSION }));
  if (options.metrics) {
    const { registry } = options.metrics;
    app.get("/metrics", async (c) => c.text(await registry.metrics(), 200, { "content-type": registry.contentType }));
  }
  return app;
}
