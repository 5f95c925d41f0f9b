import type { OpenAPIHono } from "@hono/zod-openapi";
import { param, routeKit } from "../../http/route-kit.js";
import type { GatewayContext } from "../context.js";
import type { OwnerEnv } from "../owner/owner-auth.js";
import { requireAdmin } from "../tenants/owner-auth.js";
import { resumeUpstreamCredential } from "./resume-credential.js";

const { route } = routeKit("/owner/v1", "owner");

/**
 * Upstream credential actions beyond the owner routes' list, add and rotate. Owner auth comes from the owner routes'
 * middleware (registered first); every verb is scoped to the caller's company.
 */
export function credentialRoutes(app: OpenAPIHono<OwnerEnv>, ctx: GatewayContext): void {
  app.openapi(
    route("post", "/credentials/{credentialId}/resume", "Resume a paused credential with its current value"),
    async (c) => {
      const { companyId } = c.get("owner");
      requireAdmin(c.get("owner"));
      const credentialId = param(c, "credentialId");
      return c.json(await resumeUpstreamCredential({ ctx, companyId, credentialId }), 200);
    },
  );
}
