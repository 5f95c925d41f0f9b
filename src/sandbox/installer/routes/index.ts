import type { OpenAPIHono } from "@hono/zod-openapi";
import type { SandboxEnv } from "../../env.js";
import type { InFlightKeys } from "../idempotency/in-flight.js";
import { documentRoutes } from "./documents.js";
import { evidenceRoutes } from "./evidence.js";
import { feedRoutes } from "./feed.js";
import { jobRoutes } from "./jobs.js";
import { technicianRoutes } from "./technicians.js";

export interface InstallerDeps {
  /** Idempotency keys being handled now (§8: a second request with one is 409). */
  inFlight: InFlightKeys;
}

/** The Installer API v1 under `/api/partner/v1` (§4.1), behind the key guard (§5, §8) and per-route kind and scope. */
export function installerRoutes(app: OpenAPIHono<SandboxEnv>, deps: InstallerDeps): void {
  feedRoutes(app);
  jobRoutes(app, deps.inFlight);
  technicianRoutes(app);
  documentRoutes(app);
  evidenceRoutes(app, deps.inFlight);
}
