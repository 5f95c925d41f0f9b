import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { resumeUpstreamCredential } from "../../credentials/resume-credential.js";
import {
  createUpstreamCredential,
  listUpstreamCredentials,
  rotateUpstreamCredential,
} from "../../credentials/upstream-credentials.js";
import { param, routeKit, valid } from "../route-kit.js";
import * as s from "./credentials.schemas.js";

const { bodyRoute, route } = routeKit("/owner/v1", "owner");

/** Upstream credentials (the company's general keys): the value goes in, never out (§5.9). */
export function credentialRoutes(app: GatewayApp, ctx: GatewayContext): void {
  app.openapi(
    route("get", "/credentials", { summary: "List upstream credentials", role: "viewer", ok: s.credentialList }),
    async (c) =>
      c.json({ credentials: await listUpstreamCredentials({ ctx, companyId: c.get("owner").companyId }) }, 200),
  );

  app.openapi(
    bodyRoute("post", "/credentials", s.credentialBody, {
      summary: "Add an upstream credential",
      role: "admin",
      ok: s.credential,
      status: 201,
    }),
    async (c) =>
      c.json(
        await createUpstreamCredential({ ctx, companyId: c.get("owner").companyId, input: valid(c, s.credentialBody) }),
        201,
      ),
  );

  app.openapi(
    bodyRoute("post", "/credentials/{credentialId}/rotate", s.credentialRotateBody, {
      summary: "Replace a credential's value",
      role: "admin",
      ok: s.credential,
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      const credentialId = param(c, "credentialId");
      return c.json(
        await rotateUpstreamCredential({ ctx, companyId, credentialId, value: valid(c, s.credentialRotateBody).value }),
        200,
      );
    },
  );
  app.openapi(
    route("post", "/credentials/{credentialId}/resume", {
      summary: "Resume a paused credential with its current value",
      role: "admin",
      ok: s.credential,
      errors: ["conflict"],
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      const credentialId = param(c, "credentialId");
      return c.json(await resumeUpstreamCredential({ ctx, companyId, credentialId }), 200);
    },
  );
}
