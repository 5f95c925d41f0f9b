import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { runGoldenSamples } from "../../profiles/index.js";
import { getProfileRow, getVersionRow, publishProfileVersion } from "../../profiles-admin/profiles.js";
import { param, routeKit } from "../route-kit.js";
import { TOOLING, type ToolingQuota } from "../tooling-quota.js";
import { goldenReport } from "./golden.schemas.js";
import { publishedVersion } from "./profiles.schemas.js";

const { route } = routeKit("/owner/v1", "owner");

/** One profile version: its golden samples run, and publishing (refused while one fails). */
export function profileVersionRoutes(app: GatewayApp, ctx: GatewayContext, tooling: ToolingQuota): void {
  app.openapi(
    route("post", "/profile-versions/{versionId}/test", {
      summary: "Run a version's golden samples",
      description: "Changes nothing: a viewer may run it.",
      role: "viewer",
      ok: goldenReport,
      errors: TOOLING,
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      const version = await getVersionRow(ctx, companyId, param(c, "versionId"));
      const profile = await getProfileRow(ctx, companyId, version.profileId);
      const report = await tooling.run(companyId, version.samples.length, () =>
        runGoldenSamples(
          ctx.engine,
          { versionId: version.id, kind: profile.kind, expression: version.expression, samples: version.samples },
          { tooling: true },
        ),
      );
      return c.json({ ...report }, 200);
    },
  );

  app.openapi(
    route("post", "/profile-versions/{versionId}/publish", {
      summary: "Publish (refused while a sample fails)",
      role: "admin",
      ok: publishedVersion,
      errors: [...TOOLING, "unprocessable"],
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      const versionId = param(c, "versionId");
      const samples = (await getVersionRow(ctx, companyId, versionId)).samples.length;
      return c.json(
        await tooling.run(companyId, samples, () => publishProfileVersion({ ctx, companyId, versionId })),
        200,
      );
    },
  );
}
