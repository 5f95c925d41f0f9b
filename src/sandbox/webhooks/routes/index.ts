import type { OpenAPIHono } from "@hono/zod-openapi";
import type { SandboxEnv } from "../../env.js";
import { catalogueRoutes } from "./catalogue.js";
import type { ConsoleDeps } from "./console-deps.js";
import { deliveryRoutes } from "./deliveries.js";
import { partnerRoutes } from "./partners.js";
import { secretRoutes } from "./secrets.js";
import { sessionRoutes } from "./session.js";
import { subscriptionRoutes } from "./subscriptions.js";

export type { ConsoleDeps } from "./console-deps.js";

/** The webhook console of §4.3 under `/partner-api`, behind owner sessions (§5.7). */
export function consoleRoutes(app: OpenAPIHono<SandboxEnv>, deps: ConsoleDeps): void {
  sessionRoutes(app);
  catalogueRoutes(app);
  partnerRoutes(app, deps);
  subscriptionRoutes(app, deps);
  secretRoutes(app, deps);
  deliveryRoutes(app, deps);
}
