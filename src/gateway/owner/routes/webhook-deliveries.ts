import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { getDelivery, listDeliveries } from "../../webhooks/deliveries/list-deliveries.js";
import { redeliverDelivery, redeliverRange } from "../../webhooks/deliveries/redeliver.js";
import { param, routeKit, valid } from "../route-kit.js";
import * as s from "./webhooks.schemas.js";

const { bodyRoute, route } = routeKit("/owner/v1/webhooks", "webhooks");

/** The delivery log, the dead letter and redelivery (§6.4). */
export function webhookDeliveryRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const companyOf = (c: { get(key: "owner"): { companyId: string } }) => c.get("owner").companyId;
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
