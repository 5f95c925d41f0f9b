import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { sendTestEvent } from "../../webhooks/deliveries/send-test-event.js";
import { createSubscription } from "../../webhooks/subscriptions/create-subscription.js";
import { deleteSubscription } from "../../webhooks/subscriptions/delete-subscription.js";
import { getSubscription, listSubscriptions } from "../../webhooks/subscriptions/list-subscriptions.js";
import {
  activateSubscriptionSecret,
  rotateSubscriptionSecret,
} from "../../webhooks/subscriptions/rotate-subscription-secret.js";
import { updateSubscription } from "../../webhooks/subscriptions/update-subscription.js";
import { param, routeKit, valid } from "../route-kit.js";
import * as s from "./webhooks.schemas.js";

const { bodyRoute, route } = routeKit("/owner/v1/webhooks", "webhooks");

/** Vendor webhook subscriptions (§4.3) and their secrets (§6.5). */
export function webhookSubscriptionRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const companyOf = (c: { get(key: "owner"): { companyId: string } }) => c.get("owner").companyId;
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
}
