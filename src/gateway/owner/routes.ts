import { getConnInfo } from "@hono/node-server/conninfo";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { deleteCookie, setCookie } from "hono/cookie";
import { PAYLOAD_BODY } from "../../http/body-limit.js";
import { requestHeader } from "../../http/node-headers.js";
import { clientAddressResolver, trustedPeerCheck } from "../../net/client-address.js";
import type { GatewayContext } from "../context.js";
import {
  createUpstreamCredential,
  listUpstreamCredentials,
  rotateUpstreamCredential,
} from "../credentials/upstream-credentials.js";
import {
  createVendorKey,
  listVendorKeys,
  revokeVendorKey,
  rotateVendorKey,
  updateVendorKey,
} from "../keys/vendor-keys.js";
import { runGoldenSamples } from "../profiles/index.js";
import { previewProfile, replayProfile, testDraftSamples } from "../profiles-admin/preview.js";
import {
  createProfile,
  getProfileRow,
  getVersionRow,
  listProfiles,
  listVersions,
  publishProfileVersion,
  saveProfileVersion,
} from "../profiles-admin/profiles.js";
import { rollbackProfile } from "../profiles-admin/rollback.js";
import { getSubmissionDetail, listMappingFailures, listSubmissions } from "../submissions/list-submissions.js";
import { redriveSubmissions } from "../submissions/redrive.js";
import { erasePerson } from "../submissions/retention.js";
import { SESSION_TTL_MS, signInOwner } from "../tenants/owner-auth.js";
import { createOwnerToken, listOwnerTokens, revokeOwnerToken } from "../tenants/owner-tokens.js";
import * as a from "./answers.js";
import { type OwnerEnv, ownerAuth, SESSION_COOKIE } from "./owner-auth.js";
import { cameOverHttps } from "./request-scheme.js";
import { param, routeKit, valid } from "./route-kit.js";
import * as s from "./schemas.js";
import { SignInLimiter } from "./sign-in-limiter.js";
import { ToolingQuota } from "./tooling-quota.js";

const PREFIX = "/owner/v1";
const { route, bodyRoute } = routeKit(PREFIX, "owner");
/** What a route that evaluates a profile may answer besides: the tooling quota (429) and busy evaluators (503). */
const TOOLING = ["rate_limited", "unavailable"] as const;

/**
 * The owner API: thin adapters from HTTP to the service verbs. Every verb takes the caller's company id, so another
 * company's resource is a 404 (tenant isolation lives in the services, not here).
 */
export function ownerRoutes(app: OpenAPIHono<OwnerEnv>, ctx: GatewayContext): void {
  const signInLimiter = new SignInLimiter();
  const clientAddress = clientAddressResolver(ctx.settings.trustedProxy);
  const fromTrustedProxy = trustedPeerCheck(ctx.settings.trustedProxy);
  const tooling = new ToolingQuota(ctx.settings.toolingQuota);
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "session", {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
  });

  app.openapi(
    bodyRoute("post", "/sessions", s.signInBody, {
      summary: "Sign in (sets the session cookie; returns the CSRF token)",
      role: "public",
      ok: a.signedIn,
      errors: ["unauthorized", "rate_limited"],
    }),
    async (c) => {
      const input = valid(c, s.signInBody);
      signInLimiter.take(
        input.email,
        clientAddress(peerAddress(c), (name) => requestHeader(c, name)),
      );
      const session = await signInOwner({ ctx, input });
      setCookie(c, SESSION_COOKIE, session.token, {
        httpOnly: true,
        sameSite: "Strict",
        // Live mode is https by rule; in sandbox mode, whenever this request came over https.
        secure: ctx.settings.mode === "live" || cameOverHttps(c, fromTrustedProxy),
        path: "/",
        maxAge: SESSION_TTL_MS / 1000,
      });
      return c.json({ owner: session.owner, csrfToken: session.csrf }, 200);
    },
  );

  app.use(`${PREFIX}/*`, async (c, next) => {
    if (c.req.path === `${PREFIX}/sessions` && c.req.method === "POST") return next();
    return ownerAuth(ctx)(c, next);
  });

  app.openapi(
    route("delete", "/sessions/current", { summary: "Sign out", role: "viewer", ok: a.signedOut }),
    async (c) => {
      await revokeOwnerToken({ ctx, owner: c.get("owner"), tokenId: c.get("owner").tokenId });
      deleteCookie(c, SESSION_COOKIE, { path: "/" });
      return c.json({ signedOut: true as const }, 200);
    },
  );
  app.openapi(
    route("get", "/sessions/current", {
      summary: "The session's owner and CSRF token (for a reloaded page)",
      role: "viewer",
      ok: a.currentSession,
    }),
    async (c) => {
      const { csrf, ...owner } = c.get("owner");
      // The console links the queue dashboard for the operator's admins (it exists in Redis mode only).
      const operator = owner.role === "admin" && owner.companyId === ctx.settings.operatorCompanyId;
      return c.json({ owner, csrfToken: csrf, operator }, 200);
    },
  );
  app.openapi(route("get", "/me", { summary: "The signed-in owner", role: "viewer", ok: a.principal }), async (c) => {
    const { csrf: _csrf, ...owner } = c.get("owner");
    return c.json(owner, 200);
  });
  app.openapi(
    route("get", "/tokens", {
      summary: "The owner's bearer tokens (never the tokens themselves)",
      role: "viewer",
      ok: a.tokenList,
    }),
    async (c) => c.json({ tokens: await listOwnerTokens({ ctx, owner: c.get("owner") }) }, 200),
  );
  // An owner's own tokens: a viewer manages theirs as an admin does.
  app.openapi(
    bodyRoute("post", "/tokens", s.tokenBody, {
      summary: "Create a bearer token (shown once)",
      role: "viewer",
      ok: a.createdToken,
      status: 201,
    }),
    async (c) => c.json(await createOwnerToken({ ctx, owner: c.get("owner"), input: valid(c, s.tokenBody) }), 201),
  );
  app.openapi(
    route("delete", "/tokens/{tokenId}", { summary: "Revoke a bearer token", role: "viewer", ok: a.revoked }),
    async (c) => {
      await revokeOwnerToken({ ctx, owner: c.get("owner"), tokenId: param(c, "tokenId") });
      return c.json({ revoked: true as const }, 200);
    },
  );

  // Upstream credentials: the value goes in, never out.
  app.openapi(
    route("get", "/credentials", { summary: "List upstream credentials", role: "viewer", ok: a.credentialList }),
    async (c) =>
      c.json({ credentials: await listUpstreamCredentials({ ctx, companyId: c.get("owner").companyId }) }, 200),
  );
  app.openapi(
    bodyRoute("post", "/credentials", s.credentialBody, {
      summary: "Add an upstream credential",
      role: "admin",
      ok: a.credential,
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
      ok: a.credential,
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

  // Vendor keys.
  app.openapi(route("get", "/keys", { summary: "List vendor keys", role: "viewer", ok: a.vendorKeyList }), async (c) =>
    c.json({ keys: await listVendorKeys({ ctx, companyId: c.get("owner").companyId }) }, 200),
  );
  app.openapi(
    bodyRoute("post", "/keys", s.vendorKeyBody, {
      summary: "Issue a vendor key (secret shown once)",
      role: "admin",
      ok: a.vendorKeyWithSecret,
      status: 201,
      errors: ["not_found"],
    }),
    async (c) =>
      c.json(
        await createVendorKey({ ctx, companyId: c.get("owner").companyId, input: valid(c, s.vendorKeyBody) }),
        201,
      ),
  );
  app.openapi(
    bodyRoute("patch", "/keys/{keyId}", s.vendorKeyUpdateBody, {
      summary: "Change a key's bindings",
      role: "admin",
      ok: a.vendorKey,
    }),
    async (c) => {
      const input = valid(c, s.vendorKeyUpdateBody);
      return c.json(
        await updateVendorKey({ ctx, companyId: c.get("owner").companyId, keyId: param(c, "keyId"), input }),
        200,
      );
    },
  );
  app.openapi(
    bodyRoute("post", "/keys/{keyId}/rotate", s.vendorKeyRotateBody, {
      summary: "Rotate a key's secret",
      role: "admin",
      ok: a.vendorKeyWithSecret,
    }),
    async (c) => {
      const { overlapSeconds } = valid(c, s.vendorKeyRotateBody);
      const keyId = param(c, "keyId");
      return c.json(await rotateVendorKey({ ctx, companyId: c.get("owner").companyId, keyId, overlapSeconds }), 200);
    },
  );
  app.openapi(
    route("post", "/keys/{keyId}/revoke", { summary: "Revoke a key", role: "admin", ok: a.vendorKey }),
    async (c) =>
      c.json(await revokeVendorKey({ ctx, companyId: c.get("owner").companyId, keyId: param(c, "keyId") }), 200),
  );

  // Profiles.
  app.openapi(route("get", "/profiles", { summary: "List profiles", role: "viewer", ok: a.profileList }), async (c) =>
    c.json({ profiles: await listProfiles({ ctx, companyId: c.get("owner").companyId }) }, 200),
  );
  app.openapi(
    bodyRoute("post", "/profiles", s.profileBody, {
      summary: "Create a profile",
      role: "admin",
      ok: a.profile,
      status: 201,
      errors: ["conflict"],
    }),
    async (c) =>
      c.json(await createProfile({ ctx, companyId: c.get("owner").companyId, input: valid(c, s.profileBody) }), 201),
  );
  app.openapi(
    route("get", "/profiles/{profileId}/versions", { summary: "Version history", role: "viewer", ok: a.versionList }),
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
      ok: a.savedVersion,
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
      ok: a.goldenReport,
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
    route("post", "/profile-versions/{versionId}/test", {
      summary: "Run a version's golden samples",
      description: "Changes nothing: a viewer may run it.",
      role: "viewer",
      ok: a.goldenReport,
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
      ok: a.profileVersion,
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
  app.openapi(
    bodyRoute("post", "/profiles/{profileId}/rollback", s.rollbackBody, {
      summary: "Bind every key of this profile to a published version",
      role: "admin",
      ok: a.rollback,
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
      ok: a.previewAnswer,
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
      ok: a.replay,
      errors: [...TOOLING, "not_found"],
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      const input = valid(c, s.replayBody);
      return c.json(await tooling.run(companyId, input.limit, () => replayProfile({ ctx, companyId, input })), 200);
    },
  );

  // Submissions, mapping failures, erasure.
  app.openapi(
    route("get", "/submissions", {
      summary: "Submission log (keyset-paginated)",
      role: "viewer",
      ok: a.submissionPage,
      query: s.submissionQuery,
    }),
    async (c) =>
      c.json(
        await listSubmissions({
          ctx,
          companyId: c.get("owner").companyId,
          filter: valid(c, s.submissionQuery, "query"),
        }),
        200,
      ),
  );
  app.openapi(
    route("get", "/submissions/{submissionId}", {
      summary: "One submission with payloads and result",
      role: "viewer",
      ok: a.submissionDetail,
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      return c.json(await getSubmissionDetail({ ctx, companyId, submissionId: param(c, "submissionId") }), 200);
    },
  );
  app.openapi(
    route("get", "/mapping-failures", {
      summary: "Requests refused by a profile guardrail",
      role: "viewer",
      ok: a.mappingFailures,
    }),
    async (c) =>
      c.json({ failures: await listMappingFailures({ ctx, companyId: c.get("owner").companyId, limit: 100 }) }, 200),
  );
  app.openapi(
    bodyRoute("post", "/dead-letter/redrive", s.redriveBody, {
      summary: "Send failed submissions again, optionally re-mapped",
      role: "admin",
      ok: a.redrive,
      errors: ["not_found", "unavailable"],
    }),
    async (c) => {
      const input = valid(c, s.redriveBody);
      return c.json(await redriveSubmissions({ ctx, companyId: c.get("owner").companyId, input }), 200);
    },
  );
  app.openapi(
    bodyRoute("post", "/erasures", s.erasureBody, {
      summary: "Erase a person's data by email or phone",
      role: "admin",
      ok: a.erasure,
    }),
    async (c) =>
      c.json(await erasePerson({ ctx, companyId: c.get("owner").companyId, input: valid(c, s.erasureBody) }), 200),
  );
}

/** The peer's address; in tests that call the app without a socket there is none. */
function peerAddress(c: Parameters<typeof getConnInfo>[0]): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
