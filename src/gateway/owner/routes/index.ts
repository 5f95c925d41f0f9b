import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import type { StreamLimits } from "../../submissions/stream/limits.js";
import { submissionStreamRoutes } from "../../submissions/stream/routes.js";
import { ownerAuth, SESSION_COOKIE } from "../owner-auth.js";
import { ToolingQuota } from "../tooling-quota.js";
import { alertRoutes } from "./alerts.js";
import { captureRoutes } from "./captures.js";
import { connectionPresetRoutes } from "./connection-presets.js";
import { connectionRoutes } from "./connections.js";
import { credentialRoutes } from "./credentials.js";
import { erasureRoutes } from "./erasures.js";
import { insightRoutes } from "./insights.js";
import { keyRoutes } from "./keys.js";
import { mappingFailureRoutes } from "./mapping-failures.js";
import { postingDocsRoutes } from "./posting-docs.js";
import { profileVersionRoutes } from "./profile-versions.js";
import { profileRoutes } from "./profiles.js";
import { sessionRoutes } from "./sessions.js";
import { submissionRoutes } from "./submissions.js";
import { suggestionRoutes } from "./suggestions.js";
import { tokenRoutes } from "./tokens.js";
import { webhookDeliveryRoutes } from "./webhook-deliveries.js";
import { webhookEventRoutes } from "./webhook-events.js";
import { platformWebhookRoutes } from "./webhook-platform.js";
import { webhookSubscriptionRoutes } from "./webhook-subscriptions.js";

const PREFIX = "/owner/v1";

/**
 * The owner API (docs/owner-api.md): thin adapters from HTTP to the service verbs, one file per resource with its
 * schemas beside it. Every verb takes the caller's company id, so another company's resource is a 404 (tenant isolation
 * lives in the services); each route declares its role and answers where it is registered (D-230, D-232).
 */
export function ownerApi(
  app: GatewayApp,
  ctx: GatewayContext,
  options: { streamLimits?: Partial<StreamLimits> } = {},
): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "session", {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
  });
  // Every route but signing in needs a session or a bearer token; registered first, it runs before each of them.
  app.use(`${PREFIX}/*`, async (c, next) => {
    if (c.req.path === `${PREFIX}/sessions` && c.req.method === "POST") return next();
    return ownerAuth(ctx)(c, next);
  });
  // One quota for every route that evaluates a profile.
  const tooling = new ToolingQuota(ctx.settings.toolingQuota);

  sessionRoutes(app, ctx);
  tokenRoutes(app, ctx);
  credentialRoutes(app, ctx);
  keyRoutes(app, ctx);
  postingDocsRoutes(app, ctx);
  connectionPresetRoutes(app, ctx);
  connectionRoutes(app, ctx);
  captureRoutes(app, ctx);
  profileRoutes(app, ctx, tooling);
  profileVersionRoutes(app, ctx, tooling);
  suggestionRoutes(app, ctx, tooling);
  submissionRoutes(app, ctx);
  submissionStreamRoutes(app, ctx, options.streamLimits);
  mappingFailureRoutes(app, ctx);
  erasureRoutes(app, ctx);
  insightRoutes(app, ctx);
  webhookEventRoutes(app, ctx);
  platformWebhookRoutes(app, ctx);
  webhookSubscriptionRoutes(app, ctx);
  webhookDeliveryRoutes(app, ctx);
  alertRoutes(app, ctx);
}
