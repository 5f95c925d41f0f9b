import type { z } from "@hono/zod-openapi";
import * as alerts from "./routes/alerts.schemas.js";
import * as captures from "./routes/captures.schemas.js";
import * as connections from "./routes/connections.schemas.js";
import * as credentials from "./routes/credentials.schemas.js";
import * as erasures from "./routes/erasures.schemas.js";
import type { ownerError } from "./routes/errors.schemas.js";
import { goldenReport, previewAnswer } from "./routes/golden.schemas.js";
import * as insights from "./routes/insights.schemas.js";
import * as keys from "./routes/keys.schemas.js";
import * as failures from "./routes/mapping-failures.schemas.js";
import * as postingDocs from "./routes/posting-docs.schemas.js";
import * as profiles from "./routes/profiles.schemas.js";
import * as sessions from "./routes/sessions.schemas.js";
import * as submissions from "./routes/submissions.schemas.js";
import * as suggestions from "./routes/suggestions.schemas.js";
import * as tokens from "./routes/tokens.schemas.js";
import * as webhooks from "./routes/webhooks.schemas.js";

/**
 * The owner API's JSON operations as a client sees them (D-260): method → path below /owner/v1 → the schemas of its
 * body, query and success answer. The console's client takes its types from here (type-only: no zod in the bundle);
 * test/gateway/owner-contract/operations.test.ts checks it against the route registry, schema by schema, so it
 * cannot drift from what the routes declare. The live log (server-sent events) and a key's posting page (HTML) are not
 * JSON and are not listed.
 */
export const OWNER_OPERATIONS = {
  get: {
    "/me": { ok: sessions.principal },
    "/sessions/current": { ok: sessions.currentSession },
    "/tokens": { ok: tokens.tokenList },
    "/credentials": { ok: credentials.credentialList },
    "/keys": { ok: keys.vendorKeyList },
    "/keys/{keyId}/payloads": { ok: keys.recentPayloads, query: keys.recentPayloadsQuery },
    "/keys/{keyId}/posting-docs": { ok: postingDocs.postingDocs },
    "/connection-presets": { ok: connections.connectionPresetList },
    "/connections": { ok: connections.connectionList },
    "/connections/{connectionId}": { ok: connections.connection },
    "/keys/{keyId}/captures": { ok: captures.captureList },
    "/connections/{connectionId}/captures": { ok: captures.captureList },
    "/profiles": { ok: profiles.profileList },
    "/profiles/{profileId}/versions": { ok: profiles.versionList },
    "/submissions": { ok: submissions.submissionPage, query: submissions.submissionQuery },
    "/submissions/{submissionId}": { ok: submissions.submissionDetail },
    "/mapping-failures": { ok: failures.mappingFailures },
    "/insights/key-counts": { ok: insights.keyCounts, query: insights.keyCountsQuery },
    "/insights/series": { ok: insights.series, query: insights.seriesQuery },
    "/insights/headroom": { ok: insights.headroom },
    "/webhooks/events": { ok: webhooks.eventCatalogue },
    "/webhooks/platform": { ok: webhooks.platformReceiver },
    "/webhooks/platform/events": { ok: webhooks.platformEvents, query: webhooks.eventsQuery },
    "/webhooks/subscriptions": { ok: webhooks.subscriptionList, query: webhooks.subscriptionQuery },
    "/webhooks/subscriptions/{subscriptionId}": { ok: webhooks.subscriptionWithCounts },
    "/webhooks/subscriptions/{subscriptionId}/deliveries": { ok: webhooks.deliveryPage, query: webhooks.deliveryQuery },
    "/webhooks/deliveries/{deliveryId}": { ok: webhooks.deliveryDetail },
    "/alerts": { ok: alerts.alertList, query: alerts.alertQuery },
    "/alert-settings": { ok: alerts.alertSettings },
  },
  post: {
    "/sessions": { ok: sessions.signedIn, body: sessions.signInBody },
    "/tokens": { ok: tokens.createdToken, body: tokens.tokenBody },
    "/credentials": { ok: credentials.credential, body: credentials.credentialBody },
    "/credentials/{credentialId}/rotate": { ok: credentials.credential, body: credentials.credentialRotateBody },
    "/credentials/{credentialId}/resume": { ok: credentials.credential },
    "/keys": { ok: keys.vendorKeyWithSecret, body: keys.vendorKeyBody },
    "/keys/{keyId}/rotate": { ok: keys.vendorKeyWithSecret, body: keys.vendorKeyRotateBody },
    "/keys/{keyId}/revoke": { ok: keys.vendorKey },
    "/connections": { ok: connections.connectionWithHookUrl, body: connections.connectionBody },
    "/connections/{connectionId}/rotate-hook-url": {
      ok: connections.connectionWithHookUrl,
      body: connections.hookUrlRotationBody,
    },
    "/connections/{connectionId}/revoke": { ok: connections.connection },
    "/profiles": { ok: profiles.profile, body: profiles.profileBody },
    "/profiles/{profileId}/versions": { ok: profiles.savedVersion, body: profiles.versionBody },
    "/profiles/{profileId}/test": { ok: goldenReport, body: profiles.versionBody },
    "/profiles/{profileId}/rollback": { ok: profiles.rollback, body: profiles.rollbackBody },
    "/profiles/preview": { ok: previewAnswer, body: profiles.previewBody },
    "/profiles/replay": { ok: profiles.replay, body: profiles.replayBody },
    "/profile-versions/{versionId}/test": { ok: goldenReport },
    "/profile-versions/{versionId}/publish": { ok: profiles.publishedVersion },
    "/profile-suggestions": { ok: suggestions.suggestion, body: suggestions.suggestionBody },
    "/dead-letter/redrive": { ok: submissions.redrive, body: submissions.redriveBody },
    "/erasures": { ok: erasures.erasure, body: erasures.erasureBody },
    "/webhooks/platform/secrets": { ok: webhooks.platformReceiver, body: webhooks.platformSecretBody },
    "/webhooks/platform/secrets/{version}/activate": {
      ok: webhooks.platformReceiver,
      body: webhooks.platformActivateBody,
    },
    "/webhooks/subscriptions": { ok: webhooks.createdSubscription, body: webhooks.subscriptionBody },
    "/webhooks/subscriptions/{subscriptionId}/rotate-secret": { ok: webhooks.rotatedSecret },
    "/webhooks/subscriptions/{subscriptionId}/activate-secret": {
      ok: webhooks.subscription,
      body: webhooks.activateSecretBody,
    },
    "/webhooks/subscriptions/{subscriptionId}/test": { ok: webhooks.testDelivery },
    "/webhooks/subscriptions/{subscriptionId}/redeliver": {
      ok: webhooks.redelivered,
      body: webhooks.redeliverRangeBody,
    },
    "/webhooks/deliveries/{deliveryId}/redeliver": { ok: webhooks.delivery },
    "/alerts/{alertId}/acknowledge": { ok: alerts.alert },
    "/alerts/{alertId}/mute": { ok: alerts.alert, body: alerts.muteBody },
  },
  patch: {
    "/keys/{keyId}": { ok: keys.vendorKey, body: keys.vendorKeyUpdateBody },
    "/webhooks/subscriptions/{subscriptionId}": { ok: webhooks.subscription, body: webhooks.subscriptionUpdateBody },
  },
  put: {
    "/alert-settings": { ok: alerts.alertSettings, body: alerts.alertSettingsBody },
    "/keys/{keyId}/capture": { ok: captures.captureMode, body: captures.captureModeBody },
    "/connections/{connectionId}/capture": { ok: captures.captureMode, body: captures.captureModeBody },
  },
  delete: {
    "/keys/{keyId}/captures": { ok: captures.capturesCleared },
    "/connections/{connectionId}/captures": { ok: captures.capturesCleared },
    "/sessions/current": { ok: sessions.signedOut },
    "/tokens/{tokenId}": { ok: tokens.revoked },
    "/webhooks/subscriptions/{subscriptionId}": { ok: webhooks.deletedSubscription },
  },
} as const;

type Operations = typeof OWNER_OPERATIONS;
export type OwnerMethod = keyof Operations;
export type OwnerPath<M extends OwnerMethod> = keyof Operations[M] & string;
type Operation<M extends OwnerMethod, P extends OwnerPath<M>> = Operations[M][P];

/** What an operation answers with on success (what the schema's parse gives: what the server sends). */
export type OwnerAnswer<M extends OwnerMethod, P extends OwnerPath<M>> =
  Operation<M, P> extends { ok: infer S extends z.ZodType } ? z.output<S> : never;

/** The `{name}` segments of a path, each a string. */
export type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? { [K in Name | keyof PathParams<Rest>]: string }
  : Record<never, never>;

/** What a call takes: the path's parameters, the body the schema accepts, the query it accepts. */
export type OwnerRequest<M extends OwnerMethod, P extends OwnerPath<M>> = (P extends `${string}{${string}`
  ? { params: PathParams<P> }
  : { params?: never }) &
  (Operation<M, P> extends { body: infer B extends z.ZodType } ? { body: z.input<B> } : { body?: never }) &
  (Operation<M, P> extends { query: infer Q extends z.ZodType } ? { query?: z.input<Q> } : { query?: never });

/** The owner API's error body (D-231): the message, its closed `code`, the `requestId` an owner can quote. */
export type OwnerErrorBody = z.output<typeof ownerError>;
