import { createHash, timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import { API_VERSION } from "../contract/api-version.js";
import { packageVersion } from "../version.js";
import type { HttpMetrics } from "./metrics.js";

export type ReadinessCheck = () => Promise<void> | void;

/**
 * Who may see the operational details — `/metrics` and the per-check results of readiness — on this listener
 * (docs/configuration.md, "Operational endpoints"). Readiness's status itself is always answered: a load balancer
 * needs it and it says nothing more than up or down.
 */
export interface OpsAccess {
  /** Details served on this listener at all (false: only on the separate operations listener). */
  details: boolean;
  /** When set, the details need `Authorization: Bearer <token>`. */
  token?: string | undefined;
}

/**
 * Health, version and metrics (paths not shown by the spec, §4.1 rule 9; chosen in docs/decisions.md):
 * `GET /health/live` (the process answers), `GET /health/ready` (every dependency answers), `GET /version`,
 * `GET /metrics` (Prometheus text format).
 */
export function healthRoutes(options: {
  checks?: Record<string, ReadinessCheck>;
  metrics?: HttpMetrics;
  access?: OpsAccess;
}): Hono {
  const access = options.access ?? { details: true };
  const app = new Hono();
  const entitled = (authorization: string | undefined) => {
    if (!access.details) return false;
    if (access.token === undefined) return true;
    const presented = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1] ?? "";
    // Compared as digests, in constant time: neither the token nor its length shows in the timing.
    return timingSafeEqual(sha256(presented), sha256(access.token));
  };
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
    const status = ready ? "ok" : "unavailable";
    const body = entitled(c.req.header("authorization")) ? { status, checks: results } : { status };
    return c.json(body, ready ? 200 : 503);
  });
  app.get("/version", (c) => c.json({ version: packageVersion, apiVersion: API_VERSION }));
  if (options.metrics && access.details) {
    const { registry } = options.metrics;
    app.get("/metrics", async (c) => {
      if (!entitled(c.req.header("authorization"))) {
        return c.json({ error: "metrics need the operations token" }, 401, { "www-authenticate": "Bearer" });
      }
      return c.text(await registry.metrics(), 200, { "content-type": registry.contentType });
    });
  }
  return app;
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
