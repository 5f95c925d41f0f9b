import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { SandboxEnv } from "../../env.js";
import { listDeliveries } from "../services/list-deliveries.js";
import { redeliver } from "../services/redeliver.js";
import { sendTestDelivery } from "../services/send-test-delivery.js";
import { consoleAuth } from "../session/console-auth.js";
import { type ConsoleDeps, consoleCtx } from "./console-deps.js";
import { deliveriesQuerySchema, pathParams } from "./schemas.js";

const list = createRoute({
  method: "get",
  path: "/partner-api/webhooks/{id}/deliveries",
  summary: "Delivery log with attempts; status=dead_lettered is the dead letter (§6.4.2)",
  middleware: [consoleAuth()] as const,
  request: { params: pathParams("id"), query: deliveriesQuerySchema },
  responses: { 200: { description: "{deliveries, nextBefore}" } },
});
const again = createRoute({
  method: "post",
  path: "/partner-api/webhooks/{id}/deliveries/{delivery_id}/redeliver",
  summary: "Send a delivery again (same event id, new attempts)",
  middleware: [consoleAuth()] as const,
  request: { params: pathParams("id", "delivery_id") },
  responses: { 202: { description: "the new delivery" } },
});
const test = createRoute({
  method: "post",
  path: "/partner-api/webhooks/{id}/test",
  summary: "An install.test delivery on demand (§6.1, §6.7)",
  middleware: [consoleAuth()] as const,
  request: { params: pathParams("id") },
  responses: { 202: { description: "the queued delivery" } },
});

export function deliveryRoutes(app: OpenAPIHono<SandboxEnv>, deps: ConsoleDeps): void {
  app.openapi(list, (c) => {
    const input = { id: c.req.valid("param").id ?? "", ...c.req.valid("query") };
    return c.json(listDeliveries({ ctx: consoleCtx(c, deps), input }), 200);
  });
  app.openapi(again, (c) => {
    const params = c.req.valid("param");
    const input = { id: params.id ?? "", deliveryId: params.delivery_id ?? "" };
    return c.json(redeliver({ ctx: consoleCtx(c, deps), input }), 202);
  });
  app.openapi(test, (c) =>
    c.json(sendTestDelivery({ ctx: consoleCtx(c, deps), input: { id: c.req.valid("param").id ?? "" } }), 202),
  );
}
