import { randomBytes } from "node:crypto";
import { OWNER_PASSWORD } from "../../helpers/gateway.js";
import { type ContractGateway, LEAD, SAMPLE } from "./fixture.js";

/** A valid request of one owner operation, in the order the suite sends them (later ones use earlier ones' state). */
export interface ValidRequest {
  /** The operation, as `METHOD /owner/v1/path/{param}`. */
  op: string;
  /** The path to call, below `/owner/v1`, with its parameters and query. */
  path: string;
  body?: unknown;
  /** Whose token, when not the company's admin: `none` for signing in, `signOut` for the token a sign-out ends. */
  as?: "none" | "signOut";
}

const secret = () => `svc_test_contract.${randomBytes(24).toString("base64url")}`;

/**
 * One valid request per owner operation of Acme's admin: the suite checks that the table covers the registry, so a new
 * operation fails it until it is here (with its answers declared).
 */
export function validRequests(fx: ContractGateway): ValidRequest[] {
  const { ids } = fx;
  const sub = `/webhooks/subscriptions/${ids.subscriptionId}`;
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  return [
    {
      op: "POST /owner/v1/sessions",
      path: "/sessions",
      body: { email: fx.acme.email, password: OWNER_PASSWORD },
      as: "none",
    },
    { op: "GET /owner/v1/sessions/current", path: "/sessions/current" },
    { op: "GET /owner/v1/me", path: "/me" },
    { op: "GET /owner/v1/tokens", path: "/tokens" },
    { op: "POST /owner/v1/tokens", path: "/tokens", body: { name: "contract", expiresInDays: 30 } },
    { op: "DELETE /owner/v1/tokens/{tokenId}", path: `/tokens/${fx.spareTokenId}` },
    { op: "DELETE /owner/v1/sessions/current", path: "/sessions/current", as: "signOut" },

    { op: "GET /owner/v1/credentials", path: "/credentials" },
    { op: "POST /owner/v1/credentials", path: "/credentials", body: { name: "second", value: secret() } },
    { op: "POST /owner/v1/credentials/{credentialId}/resume", path: `/credentials/${ids.credentialId}/resume` },
    {
      op: "POST /owner/v1/credentials/{credentialId}/rotate",
      path: `/credentials/${ids.credentialId}/rotate`,
      body: { value: secret() },
    },

    { op: "GET /owner/v1/keys", path: "/keys" },
    {
      op: "POST /owner/v1/keys",
      path: "/keys",
      body: { name: "new", partnerType: "lead_source", scopes: ["leads:write"], credentialId: ids.credentialId },
    },
    { op: "PATCH /owner/v1/keys/{keyId}", path: `/keys/${ids.spareKeyId}`, body: { name: "renamed" } },
    { op: "POST /owner/v1/keys/{keyId}/rotate", path: `/keys/${ids.spareKeyId}/rotate`, body: { overlapSeconds: 60 } },
    { op: "POST /owner/v1/keys/{keyId}/revoke", path: `/keys/${ids.spareKeyId}/revoke` },

    { op: "GET /owner/v1/connection-presets", path: "/connection-presets" },
    { op: "GET /owner/v1/connections", path: "/connections" },
    {
      op: "POST /owner/v1/connections",
      path: "/connections",
      body: {
        preset: "angi",
        name: "Angi second",
        secrets: { apiKey: "contract-angi-key-2" },
        credentialId: ids.credentialId,
      },
    },
    { op: "GET /owner/v1/connections/{connectionId}", path: `/connections/${ids.connectionId}` },
    {
      op: "POST /owner/v1/connections/{connectionId}/rotate-hook-url",
      path: `/connections/${ids.connectionId}/rotate-hook-url`,
      body: { overlapHours: 1 },
    },
    { op: "POST /owner/v1/connections/{connectionId}/revoke", path: `/connections/${ids.spareConnectionId}/revoke` },

    { op: "GET /owner/v1/profiles", path: "/profiles" },
    { op: "POST /owner/v1/profiles", path: "/profiles", body: { name: "contract", kind: "lead", description: null } },
    { op: "GET /owner/v1/profiles/{profileId}/versions", path: `/profiles/${ids.profileId}/versions` },
    {
      op: "POST /owner/v1/profiles/{profileId}/versions",
      path: `/profiles/${ids.profileId}/versions`,
      body: { expression: LEAD, samples: [SAMPLE] },
    },
    {
      op: "POST /owner/v1/profiles/{profileId}/test",
      path: `/profiles/${ids.profileId}/test`,
      body: { expression: LEAD, samples: [SAMPLE] },
    },
    { op: "POST /owner/v1/profile-versions/{versionId}/test", path: `/profile-versions/${ids.versionId}/test` },
    { op: "POST /owner/v1/profile-versions/{versionId}/publish", path: `/profile-versions/${ids.versionId}/publish` },
    {
      op: "POST /owner/v1/profiles/{profileId}/rollback",
      path: `/profiles/${ids.profileId}/rollback`,
      body: { versionId: ids.versionId },
    },
    {
      op: "POST /owner/v1/profiles/preview",
      path: "/profiles/preview",
      body: { kind: "lead", expression: LEAD, payload: SAMPLE.payload },
    },
    {
      op: "POST /owner/v1/profile-suggestions",
      path: "/profile-suggestions",
      body: { kind: "lead", payloads: [SAMPLE.payload] },
    },
    {
      op: "POST /owner/v1/profiles/replay",
      path: "/profiles/replay",
      body: { keyId: ids.keyId, kind: "lead", expression: `{ "fullName": name }`, limit: 5 },
    },

    { op: "GET /owner/v1/submissions", path: `/submissions?limit=10&status=held&connectionId=${ids.connectionId}` },
    { op: "GET /owner/v1/streams/submissions", path: `/streams/submissions?kind=lead` },
    { op: "GET /owner/v1/submissions/{submissionId}", path: `/submissions/${ids.failedSubmissionId}` },
    { op: "GET /owner/v1/mapping-failures", path: "/mapping-failures" },
    {
      op: "POST /owner/v1/dead-letter/redrive",
      path: "/dead-letter/redrive",
      body: { submissionIds: [ids.failedSubmissionId] },
    },
    { op: "POST /owner/v1/erasures", path: "/erasures", body: { email: "nobody@example.com" } },

    { op: "GET /owner/v1/insights/key-counts", path: "/insights/key-counts?hours=24" },
    { op: "GET /owner/v1/insights/series", path: "/insights/series?hours=2&bucketMinutes=30" },
    { op: "GET /owner/v1/insights/headroom", path: "/insights/headroom" },
    { op: "GET /owner/v1/keys/{keyId}/payloads", path: `/keys/${ids.keyId}/payloads?limit=5` },
    { op: "GET /owner/v1/keys/{keyId}/posting-docs", path: `/keys/${ids.keyId}/posting-docs` },
    { op: "GET /owner/v1/keys/{keyId}/posting-docs/page", path: `/keys/${ids.keyId}/posting-docs/page` },

    { op: "GET /owner/v1/webhooks/events", path: "/webhooks/events" },
    { op: "GET /owner/v1/webhooks/platform", path: "/webhooks/platform" },
    { op: "GET /owner/v1/webhooks/platform/events", path: "/webhooks/platform/events?limit=10" },
    {
      op: "POST /owner/v1/webhooks/platform/secrets",
      path: "/webhooks/platform/secrets",
      body: { version: 2, secret: "b".repeat(32) },
    },
    {
      op: "POST /owner/v1/webhooks/platform/secrets/{version}/activate",
      path: "/webhooks/platform/secrets/2/activate",
      body: { overlapSeconds: 60 },
    },
    { op: "GET /owner/v1/webhooks/subscriptions", path: `/webhooks/subscriptions?vendorKeyId=${ids.keyId}` },
    {
      op: "POST /owner/v1/webhooks/subscriptions",
      path: "/webhooks/subscriptions",
      body: { vendorKeyId: ids.keyId, url: fx.receiverUrl, events: ["submission.forwarded"] },
    },
    { op: "GET /owner/v1/webhooks/subscriptions/{subscriptionId}", path: sub },
    {
      op: "PATCH /owner/v1/webhooks/subscriptions/{subscriptionId}",
      path: sub,
      body: { events: ["submission.failed", "submission.forwarded"] },
    },
    { op: "POST /owner/v1/webhooks/subscriptions/{subscriptionId}/rotate-secret", path: `${sub}/rotate-secret` },
    {
      op: "POST /owner/v1/webhooks/subscriptions/{subscriptionId}/activate-secret",
      path: `${sub}/activate-secret`,
      body: { pendingSecretVersion: 2, overlapSeconds: 60 },
    },
    { op: "POST /owner/v1/webhooks/subscriptions/{subscriptionId}/test", path: `${sub}/test` },
    { op: "GET /owner/v1/webhooks/subscriptions/{subscriptionId}/deliveries", path: `${sub}/deliveries?limit=10` },
    {
      op: "POST /owner/v1/webhooks/subscriptions/{subscriptionId}/redeliver",
      path: `${sub}/redeliver`,
      body: { from: hourAgo, to: new Date().toISOString() },
    },
    { op: "GET /owner/v1/webhooks/deliveries/{deliveryId}", path: `/webhooks/deliveries/${ids.deliveryId}` },
    {
      op: "POST /owner/v1/webhooks/deliveries/{deliveryId}/redeliver",
      path: `/webhooks/deliveries/${ids.deliveryId}/redeliver`,
    },
    { op: "GET /owner/v1/alerts", path: "/alerts?status=open&limit=10" },
    { op: "POST /owner/v1/alerts/{alertId}/acknowledge", path: `/alerts/${ids.alertId}/acknowledge` },
    {
      op: "POST /owner/v1/alerts/{alertId}/mute",
      path: `/alerts/${ids.alertId}/mute`,
      body: { until: new Date(Date.now() + 3_600_000).toISOString() },
    },
    { op: "GET /owner/v1/alert-settings", path: "/alert-settings" },
    {
      op: "PUT /owner/v1/alert-settings",
      path: "/alert-settings",
      body: {
        thresholds: { proof_failures: { count: 5 } },
        routes: { warning: ["webhook"] },
        channels: { webhook: { url: fx.receiverUrl, secret: "s".repeat(32) } },
      },
    },
    {
      op: "DELETE /owner/v1/webhooks/subscriptions/{subscriptionId}",
      path: `/webhooks/subscriptions/${ids.spareSubscriptionId}`,
    },

    // Capture mode (D-315): last, so no earlier request's intake is captured instead of accepted.
    { op: "PUT /owner/v1/keys/{keyId}/capture", path: `/keys/${ids.keyId}/capture`, body: { on: false } },
    { op: "GET /owner/v1/keys/{keyId}/captures", path: `/keys/${ids.keyId}/captures` },
    { op: "DELETE /owner/v1/keys/{keyId}/captures", path: `/keys/${ids.keyId}/captures` },
    {
      op: "PUT /owner/v1/connections/{connectionId}/capture",
      path: `/connections/${ids.connectionId}/capture`,
      body: { on: true },
    },
    { op: "GET /owner/v1/connections/{connectionId}/captures", path: `/connections/${ids.connectionId}/captures` },
    { op: "DELETE /owner/v1/connections/{connectionId}/captures", path: `/connections/${ids.connectionId}/captures` },
  ];
}
