import type { OpenAPIHono } from "@hono/zod-openapi";
import { SIGNATURE_SCHEME } from "../../contract/signing.js";
import type { GatewayContext } from "../context.js";
import type { OwnerEnv } from "../owner/owner-auth.js";
import { EVENTS_BY_PARTNER_TYPE, TEST_EVENT } from "./catalogue.js";
import { getDelivery, listDeliveries } from "./deliveries/list-deliveries.js";
import { redeliverDelivery, redeliverRange } from "./deliveries/redeliver.js";
import { sendTestEvent } from "./deliveries/send-test-event.js";
import { listPlatformEvents } from "./platform/list-platform-events.js";
import { activatePlatformSecret, getPlatformReceiver, loadPlatformSecret } from "./platform/platform-secrets.js";
import { platformReceiverRoute } from "./platform/receiver-route.js";
import { bodyRoute, param, route, valid } from "./route-helpers.js";
import * as s from "./schemas.js";
import { createSubscription } from "./subscriptions/create-subscription.js";
import { deleteSubscription } from "./subscriptions/delete-subscription.js";
import { getSubscription, listSubscriptions } from "./subscriptions/list-subscriptions.js";
import { activateSubscriptionSecret, rotateSubscriptionSecret } from "./subscriptions/rotate-subscription-secret.js";
import { updateSubscription } from "./subscriptions/update-subscription.js";

/**
 * The webhook surface: the platform's deliveries at `POST /webhooks/platform/{companyId}` (signature-authenticated),
 * and the owner API under `/owner/v1/webhooks` (owner auth comes from the owner routes' middleware, registered first).
 */
export function webhookRoutes(app: OpenAPIHono<OwnerEnv>, ctx: GatewayContext): void {
  platformReceiverRoute(app, ctx);
  const companyOf = (c: { get(key: "owner"): { companyId: string } }) => c.get("owner").companyId;

  app.openapi(
    route("get", "/events", {
      summary: "Events each partner type may subscribe to, and the signature scheme",
      role: "viewer",
      ok: s.eventCatalogue,
    }),
    async (c) =>
      c.json(
        { signatureScheme: SIGNATURE_SCHEME, testEvent: TEST_EVENT, eventsByPartnerType: EVENTS_BY_PARTNER_TYPE },
        200,
      ),
  );

  // The platform's deliveries to this company (§6.3–§6.6): where to point them, and the secrets they are signed with.
  app.openapi(
    route("get", "/platform", {
      summary: "The platform receiver: path and secret versions",
      role: "viewer",
      ok: s.platformReceiver,
    }),
    async (c) => c.json(await getPlatformReceiver({ ctx, companyId: companyOf(c) }), 200),
  );
  app.openapi(
    route("get", "/platform/events", {
      summary: "Platform events received, newest first",
      role: "viewer",
      ok: s.platformEvents,
      query: s.eventsQuery,
    }),
    async (c) => {
      const { limit } = valid(c, s.eventsQuery, "query");
      return c.json({ events: await listPlatformEvents({ ctx, companyId: companyOf(c), limit: limit ?? 50 }) }, 200);
    },
  );
  app.openapi(
    bodyRoute("post", "/platform/secrets", s.platformSecretBody, {
      summary: "Load a secret the platform showed (§6.5.2)",
      role: "admin",
      ok: s.platformReceiver,
      errors: ["conflict"],
    }),
    async (c) =>
      c.json(await loadPlatformSecret({ ctx, companyId: companyOf(c), input: valid(c, s.platformSecretBody) }), 200),
  );
  app.openapi(
    bodyRoute("post", "/platform/secrets/{version}/activate", s.platformActivateBody, {
      summary: "The platform signs with the pending version now (§6.5.3)",
      role: "admin",
      ok: s.platformReceiver,
      errors: ["conflict"],
    }),
    async (c) => {
      const input = { version: Number(param(c, "version")), ...valid(c, s.platformActivateBody) };
      return c.json(await activatePlatformSecret({ ctx, companyId: companyOf(c), input }), 200);
    },
  );

  // Vendor subscriptions.
  app.openapi(
    route("get", "/subscriptions", {
      summary: "List subscriptions",
      role: "viewer",
      ok: s.subscriptionList,
      query: s.subscriptionQuery,
    }),
    async (c) => {
      const { vendorKeyId } = valid(c, s.subscriptionQuery, "query");
      return c.json({ subscriptions: await listSubscriptions({ ctx, companyId: companyOf(c), vendorKeyId }) }, 200);
    },
  );
  app.openapi(
    bodyRoute("post", "/subscriptions", s.subscriptionBody, {
      summary: "Subscribe a vendor key (secret shown once)",
      role: "admin",
      ok: s.createdSubscription,
      status: 201,
      errors: ["not_found"],
    }),
    async (c) =>
      c.json(await createSubscription({ ctx, companyId: companyOf(c), input: valid(c, s.subscriptionBody) }), 201),
  );
  app.openapi(
    route("get", "/subscriptions/{subscriptionId}", {
      summary: "One subscription with delivery counts",
      role: "viewer",
      ok: s.subscriptionWithCounts,
    }),
    async (c) =>
      c.json(await getSubscription({ ctx, companyId: companyOf(c), subscriptionId: param(c, "subscriptionId") }), 200),
  );
  app.openapi(
    bodyRoute("patch", "/subscriptions/{subscriptionId}", s.subscriptionUpdateBody, {
      summary: "Change, disable or re-enable",
      role: "admin",
      ok: s.subscription,
    }),
    async (c) => {
      const input = valid(c, s.subscriptionUpdateBody);
      const subscriptionId = param(c, "subscriptionId");
      return c.json(await updateSubscription({ ctx, companyId: companyOf(c), subscriptionId, input }), 200);
    },
  );
  app.openapi(
    route("delete", "/subscriptions/{subscriptionId}", {
      summary: "Delete with its deliveries",
      role: "admin",
      ok: s.deletedSubscription,
    }),
    async (c) =>
      c.json(
        await deleteSubscription({ ctx, companyId: companyOf(c), subscriptionId: param(c, "subscriptionId") }),
        200,
      ),
  );
  app.openapi(
    route("post", "/subscriptions/{subscriptionId}/rotate-secret", {
      summary: "Pending secret, next version, shown once (§6.5.1)",
      role: "admin",
      ok: s.rotatedSecret,
    }),
    async (c) => {
      const subscriptionId = param(c, "subscriptionId");
      return c.json(await rotateSubscriptionSecret({ ctx, companyId: companyOf(c), subscriptionId }), 200);
    },
  );
  app.openapi(
    bodyRoute("post", "/subscriptions/{subscriptionId}/activate-secret", s.activateSecretBody, {
      summary: "Sign with the pending version (§6.5.3)",
      role: "admin",
      ok: s.subscription,
      errors: ["conflict"],
    }),
    async (c) => {
      const input = valid(c, s.activateSecretBody);
      const subscriptionId = param(c, "subscriptionId");
      return c.json(await activateSubscriptionSecret({ ctx, companyId: companyOf(c), subscriptionId, input }), 200);
    },
  );
  app.openapi(
    route("post", "/subscriptions/{subscriptionId}/test", {
      summary: "Send a test delivery",
      role: "admin",
      ok: s.testDelivery,
    }),
    async (c) =>
      c.json(await sendTestEvent({ ctx, companyId: companyOf(c), subscriptionId: param(c, "subscriptionId") }), 200),
  );

  // Delivery log, dead letter, redelivery.
  app.openapi(
    route("get", "/subscriptions/{subscriptionId}/deliveries", {
      summary: "Delivery log (failed = dead letter)",
      role: "viewer",
      ok: s.deliveryPage,
      query: s.deliveryQuery,
    }),
    async (c) => {
      const filter = valid(c, s.deliveryQuery, "query");
      const subscriptionId = param(c, "subscriptionId");
      return c.json(await listDeliveries({ ctx, companyId: companyOf(c), subscriptionId, filter }), 200);
    },
  );
  app.openapi(
    bodyRoute("post", "/subscriptions/{subscriptionId}/redeliver", s.redeliverRangeBody, {
      summary: "Redeliver a time range (dead letter by default)",
      role: "admin",
      ok: s.redelivered,
      errors: ["conflict"],
    }),
    async (c) => {
      const input = valid(c, s.redeliverRangeBody);
      const subscriptionId = param(c, "subscriptionId");
      return c.json(await redeliverRange({ ctx, companyId: companyOf(c), subscriptionId, input }), 200);
    },
  );
  app.openapi(
    route("get", "/deliveries/{deliveryId}", {
      summary: "One delivery with its attempts",
      role: "viewer",
      ok: s.deliveryDetail,
    }),
    async (c) => c.json(await getDelivery({ ctx, companyId: companyOf(c), deliveryId: param(c, "deliveryId") }), 200),
  );
  app.openapi(
    route("post", "/deliveries/{deliveryId}/redeliver", {
      summary: "Redeliver one delivery",
      role: "admin",
      ok: s.delivery,
      errors: ["conflict"],
    }),
    async (c) =>
      c.json(await redeliverDelivery({ ctx, companyId: companyOf(c), deliveryId: param(c, "deliveryId") }), 200),
  );
}
