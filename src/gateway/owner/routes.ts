import { getConnInfo } from "@hono/node-server/conninfo";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { deleteCookie, setCookie } from "hono/cookie";
import { OWNER_BODY, PAYLOAD_BODY } from "../../http/body-limit.js";
import { jsonBody } from "../../http/json-body.js";
import { requestHeader } from "../../http/node-headers.js";
import { bodyLimitText, param, routeKit, valid } from "../../http/route-kit.js";
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
import { requireAdmin, SESSION_TTL_MS, signInOwner } from "../tenants/owner-auth.js";
import { createOwnerToken, listOwnerTokens, revokeOwnerToken } from "../tenants/owner-tokens.js";
import { type OwnerEnv, ownerAuth, SESSION_COOKIE } from "./owner-auth.js";
import { cameOverHttps } from "./request-scheme.js";
import * as s from "./schemas.js";
import { SignInLimiter } from "./sign-in-limiter.js";
import { ToolingQuota } from "./tooling-quota.js";

const PREFIX = "/owner/v1";
const { route, bodyRoute } = routeKit(PREFIX, "owner");
const anyJson = z.record(z.string(), z.unknown());

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
    createRoute({
      method: "post",
      path: `${PREFIX}/sessions`,
      summary: "Sign in (sets the session cookie; returns the CSRF token)",
      tags: ["owner"],
      description: bodyLimitText(OWNER_BODY),
      middleware: [jsonBody(OWNER_BODY)],
      request: { body: { content: { "application/json": { schema: s.signInBody } }, required: true } },
      responses: {
        200: { description: "signed in", content: { "application/json": { schema: anyJson } } },
        429: { description: "too many attempts", content: { "application/json": { schema: s.errorBody } } },
      },
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

  app.openapi(route("delete", "/sessions/current", "Sign out"), async (c) => {
    await revokeOwnerToken({ ctx, owner: c.get("owner"), tokenId: c.get("owner").tokenId });
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return c.json({ signedOut: true }, 200);
  });
  app.openapi(route("get", "/sessions/current", "The session's owner and CSRF token (for a reloaded page)"), (c) => {
    const { csrf, ...owner } = c.get("owner");
    // The console links the queue dashboard for the operator's admins (it exists in Redis mode only).
    const operator = owner.role === "admin" && owner.companyId === ctx.settings.operatorCompanyId;
    return c.json({ owner, csrfToken: csrf, operator }, 200);
  });
  app.openapi(route("get", "/me", "The signed-in owner"), (c) => c.json({ ...c.get("owner"), csrf: undefined }, 200));
  app.openapi(route("get", "/tokens", "The owner's bearer tokens (never the tokens themselves)"), async (c) =>
    c.json({ tokens: await listOwnerTokens({ ctx, owner: c.get("owner") }) }, 200),
  );
  app.openapi(bodyRoute("post", "/tokens", "Create a bearer token (shown once)", s.tokenBody, 201), async (c) =>
    c.json(await createOwnerToken({ ctx, owner: c.get("owner"), input: valid(c, s.tokenBody) }), 201),
  );
  app.openapi(route("delete", "/tokens/{tokenId}", "Revoke a bearer token"), async (c) => {
    await revokeOwnerToken({ ctx, owner: c.get("owner"), tokenId: param(c, "tokenId") });
    return c.json({ revoked: true }, 200);
  });

  // Upstream credentials: the value goes in, never out.
  app.openapi(route("get", "/credentials", "List upstream credentials"), async (c) =>
    c.json({ credentials: await listUpstreamCredentials({ ctx, companyId: c.get("owner").companyId }) }, 200),
  );
  app.openapi(bodyRoute("post", "/credentials", "Add an upstream credential", s.credentialBody, 201), async (c) => {
    requireAdmin(c.get("owner"));
    return c.json(
      await createUpstreamCredential({ ctx, companyId: c.get("owner").companyId, input: valid(c, s.credentialBody) }),
      201,
    );
  });
  app.openapi(
    bodyRoute("post", "/credentials/{credentialId}/rotate", "Replace a credential's value", s.credentialRotateBody),
    async (c) => {
      requireAdmin(c.get("owner"));
      const { companyId } = c.get("owner");
      const credentialId = param(c, "credentialId");
      return c.json(
        await rotateUpstreamCredential({ ctx, companyId, credentialId, value: valid(c, s.credentialRotateBody).value }),
        200,
      );
    },
  );

  // Vendor keys.
  app.openapi(route("get", "/keys", "List vendor keys"), async (c) =>
    c.json({ keys: await listVendorKeys({ ctx, companyId: c.get("owner").companyId }) }, 200),
  );
  app.openapi(bodyRoute("post", "/keys", "Issue a vendor key (secret shown once)", s.vendorKeyBody, 201), async (c) => {
    requireAdmin(c.get("owner"));
    return c.json(
      await createVendorKey({ ctx, companyId: c.get("owner").companyId, input: valid(c, s.vendorKeyBody) }),
      201,
    );
  });
  app.openapi(bodyRoute("patch", "/keys/{keyId}", "Change a key's bindings", s.vendorKeyUpdateBody), async (c) => {
    requireAdmin(c.get("owner"));
    const input = valid(c, s.vendorKeyUpdateBody);
    return c.json(
      await updateVendorKey({ ctx, companyId: c.get("owner").companyId, keyId: param(c, "keyId"), input }),
      200,
    );
  });
  app.openapi(bodyRoute("post", "/keys/{keyId}/rotate", "Rotate a key's secret", s.vendorKeyRotateBody), async (c) => {
    requireAdmin(c.get("owner"));
    const { overlapSeconds } = valid(c, s.vendorKeyRotateBody);
    const keyId = param(c, "keyId");
    return c.json(await rotateVendorKey({ ctx, companyId: c.get("owner").companyId, keyId, overlapSeconds }), 200);
  });
  app.openapi(route("post", "/keys/{keyId}/revoke", "Revoke a key"), async (c) => {
    requireAdmin(c.get("owner"));
    return c.json(await revokeVendorKey({ ctx, companyId: c.get("owner").companyId, keyId: param(c, "keyId") }), 200);
  });

  // Profiles.
  app.openapi(route("get", "/profiles", "List profiles"), async (c) =>
    c.json({ profiles: await listProfiles({ ctx, companyId: c.get("owner").companyId }) }, 200),
  );
  app.openapi(bodyRoute("post", "/profiles", "Create a profile", s.profileBody, 201), async (c) => {
    requireAdmin(c.get("owner"));
    return c.json(
      await createProfile({ ctx, companyId: c.get("owner").companyId, input: valid(c, s.profileBody) }),
      201,
    );
  });
  app.openapi(route("get", "/profiles/{profileId}/versions", "Version history"), async (c) => {
    const versions = await listVersions({ ctx, companyId: c.get("owner").companyId, profileId: param(c, "profileId") });
    return c.json({ versions }, 200);
  });
  app.openapi(
    bodyRoute(
      "post",
      "/profiles/{profileId}/versions",
      "Save a draft version (runs the golden samples)",
      s.versionBody,
      201,
      PAYLOAD_BODY,
    ),
    async (c) => {
      requireAdmin(c.get("owner"));
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
    bodyRoute(
      "post",
      "/profiles/{profileId}/test",
      "Run golden samples against an unsaved draft",
      s.versionBody,
      200,
      PAYLOAD_BODY,
    ),
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
  app.openapi(route("post", "/profile-versions/{versionId}/test", "Run a version's golden samples"), async (c) => {
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
  });
  app.openapi(
    route("post", "/profile-versions/{versionId}/publish", "Publish (refused while a sample fails)"),
    async (c) => {
      requireAdmin(c.get("owner"));
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
    bodyRoute(
      "post",
      "/profiles/{profileId}/rollback",
      "Bind every key of this profile to a published version",
      s.rollbackBody,
    ),
    async (c) => {
      requireAdmin(c.get("owner"));
      const { companyId } = c.get("owner");
      const { versionId } = valid(c, s.rollbackBody);
      return c.json(await rollbackProfile({ ctx, companyId, profileId: param(c, "profileId"), versionId }), 200);
    },
  );
  app.openapi(
    bodyRoute("post", "/profiles/preview", "Map a payload with a draft expression", s.previewBody, 200, PAYLOAD_BODY),
    async (c) => {
      const { companyId } = c.get("owner");
      const input = valid(c, s.previewBody);
      return c.json({ ...(await tooling.run(companyId, 1, () => previewProfile({ ctx, companyId, input }))) }, 200);
    },
  );
  app.openapi(
    bodyRoute(
      "post",
      "/profiles/replay",
      "Replay a key's recent payloads through a draft, diffed per field",
      s.replayBody,
    ),
    async (c) => {
      const { companyId } = c.get("owner");
      const input = valid(c, s.replayBody);
      return c.json(await tooling.run(companyId, input.limit, () => replayProfile({ ctx, companyId, input })), 200);
    },
  );

  // Submissions, mapping failures, erasure.
  app.openapi(route("get", "/submissions", "Submission log (keyset-paginated)", s.submissionQuery), async (c) =>
    c.json(
      await listSubmissions({ ctx, companyId: c.get("owner").companyId, filter: valid(c, s.submissionQuery, "query") }),
      200,
    ),
  );
  app.openapi(route("get", "/submissions/{submissionId}", "One submission with payloads and result"), async (c) => {
    const { companyId } = c.get("owner");
    return c.json(await getSubmissionDetail({ ctx, companyId, submissionId: param(c, "submissionId") }), 200);
  });
  app.openapi(route("get", "/mapping-failures", "Requests refused by a profile guardrail"), async (c) =>
    c.json({ failures: await listMappingFailures({ ctx, companyId: c.get("owner").companyId, limit: 100 }) }, 200),
  );
  app.openapi(
    bodyRoute("post", "/dead-letter/redrive", "Send failed submissions again, optionally re-mapped", s.redriveBody),
    async (c) => {
      requireAdmin(c.get("owner"));
      const input = valid(c, s.redriveBody);
      return c.json(await redriveSubmissions({ ctx, companyId: c.get("owner").companyId, input }), 200);
    },
  );
  app.openapi(bodyRoute("post", "/erasures", "Erase a person's data by email or phone", s.erasureBody), async (c) => {
    requireAdmin(c.get("owner"));
    return c.json(await erasePerson({ ctx, companyId: c.get("owner").companyId, input: valid(c, s.erasureBody) }), 200);
  });
}

/** The peer's address; in tests that call the app without a socket there is none. */
function peerAddress(c: Parameters<typeof getConnInfo>[0]): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
