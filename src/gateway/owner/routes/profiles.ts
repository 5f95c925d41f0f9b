import { PAYLOAD_BODY } from "../../../http/body-limit.js";
import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { previewProfile, replayProfile, testDraftSamples } from "../../profiles-admin/preview.js";
import { createProfile, listProfiles, listVersions, saveProfileVersion } from "../../profiles-admin/profiles.js";
import { rollbackProfile } from "../../profiles-admin/rollback.js";
import { param, routeKit, valid } from "../route-kit.js";
import { TOOLING, type ToolingQuota } from "../tooling-quota.js";
import { goldenReport, previewAnswer } from "./golden.schemas.js";
import * as s from "./profiles.schemas.js";

const { bodyRoute, route } = routeKit("/owner/v1", "owner");

/** Mapping profiles and the editor's tools: versions, draft tests, preview, replay, rollback. */
export function profileRoutes(app: GatewayApp, ctx: GatewayContext, tooling: ToolingQuota): void {
  app.openapi(route("get", "/profiles", { summary: "List profiles", role: "viewer", ok: s.profileList }), async (c) =>
    c.json({ profiles: await listProfiles({ ctx, companyId: c.get("owner").companyId }) }, 200),
  );

  app.openapi(
    bodyRoute("post", "/profiles", s.profileBody, {
      summary: "Create a profile",
      role: "admin",
      ok: s.profile,
      status: 201,
      errors: ["conflict"],
    }),
    async (c) =>
      c.json(await createProfile({ ctx, companyId: c.get("owner").companyId, input: valid(c, s.profileBody) }), 201),
  );

  app.openapi(
    route("get", "/profiles/{profileId}/versions", { summary: "Version history", role: "viewer", ok: s.versionList }),
    async (c) => {
      const versions = await listVersions({
        ctx,
        companyId: c.get("owner").companyId,
        profileId: param(c, "profileId"),
      });
      return c.json({ versions }, 200);
    },
  );

  app.openapi(
    bodyRoute("post", "/profiles/{profileId}/versions", s.versionBody, {
      summary: "Save a draft version (runs the golden samples)",
      role: "admin",
      ok: s.savedVersion,
      status: 201,
      limits: PAYLOAD_BODY,
      errors: TOOLING,
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      const input = valid(c, s.versionBody) as Parameters<typeof saveProfileVersion>[0]["input"];
      const profileId = param(c, "profileId");
      const saved = await tooling.run(companyId, input.samples.length, () =>
        saveProfileVersion({ ctx, companyId, profileId, input }),
      );
      return c.json(saved, 201);
    },
  );

  app.openapi(
    bodyRoute("post", "/profiles/{profileId}/test", s.versionBody, {
      summary: "Run golden samples against an unsaved draft",
      description: "Changes nothing: a viewer may run it.",
      role: "viewer",
      ok: goldenReport,
      limits: PAYLOAD_BODY,
      errors: TOOLING,
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      const input = valid(c, s.versionBody) as Parameters<typeof testDraftSamples>[0]["input"];
      const profileId = param(c, "profileId");
      const report = await tooling.run(companyId, input.samples.length, () =>
        testDraftSamples({ ctx, companyId, profileId, input }),
      );
      return c.json({ ...report }, 200);
    },
  );

  app.openapi(
    bodyRoute("post", "/profiles/{profileId}/rollback", s.rollbackBody, {
      summary: "Bind every key of this profile to a published version",
      role: "admin",
      ok: s.rollback,
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      const { versionId } = valid(c, s.rollbackBody);
      return c.json(await rollbackProfile({ ctx, companyId, profileId: param(c, "profileId"), versionId }), 200);
    },
  );

  app.openapi(
    bodyRoute("post", "/profiles/preview", s.previewBody, {
      summary: "Map a payload with a draft expression",
      description: "Changes nothing: a viewer may run it.",
      role: "viewer",
      ok: previewAnswer,
      limits: PAYLOAD_BODY,
      errors: TOOLING,
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      const input = valid(c, s.previewBody);
      return c.json({ ...(await tooling.run(companyId, 1, () => previewProfile({ ctx, companyId, input }))) }, 200);
    },
  );

  app.openapi(
    bodyRoute("post", "/profiles/replay", s.replayBody, {
      summary: "Replay a key's recent payloads through a draft, diffed per field",
      description: "Changes nothing: a viewer may run it.",
      role: "viewer",
      ok: s.replay,
      errors: [...TOOLING, "not_found"],
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      const input = valid(c, s.replayBody);
      return c.json(await tooling.run(companyId, input.limit, () => replayProfile({ ctx, companyId, input })), 200);
    },
  );
}
