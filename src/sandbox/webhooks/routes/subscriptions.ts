import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { jsonBody } from "../../../http/json-body.js";
import type { SandboxEnv } from "../../env.js";
import { createSubscription } from "../services/create-subscription.js";
import { deleteSubscription } from "../services/delete-subscription.js";
import { listSubscriptions } from "../services/list-subscriptions.js";
import { ownSubscription, subscriptionView } from "../services/subscription-view.js";
import { consoleAuth, ownerOf } from "../session/console-auth.js";
import { type ConsoleDeps, consoleCtx } from "./console-deps.js";
import { newSubscriptionSchema, pathParams } from "./schemas.js";

const create = createRoute({
  method: "post",
  path: "/partner-api/webhooks",
  summary: "Create a subscription (§4.3); the secret is shown once",
  middleware: [consoleAuth(), jsonBody()] as const,
  request: { body: { content: { "application/json": { schema: newSubscriptionSchema } }, required: true } },
  responses: { 201: { description: "the subscription with `secret` and `secretVersion`" } },
});
const list = createRoute({
  method: "get",
  path: "/partner-api/webhooks",
  summary: "The owner's subscriptions",
  middleware: [consoleAuth()] as const,
  responses: { 200: { description: "{subscriptions}" } },
});
const read = createRoute({
  method: "get",
  path: "/partner-api/webhooks/{id}",
  summary: "One subscription",
  middleware: [consoleAuth()] as const,
  request: { params: pathParams("id") },
  responses: { 200: { description: "the subscription" } },
});
const remove = createRoute({
  method: "delete",
  path: "/partner-api/webhooks/{id}",
  summary: "Delete a subscription and its delivery log",
  middleware: [consoleAuth()] as const,
  request: { params: pathParams("id") },
  responses: { 200: { description: "{id, deleted: true}" } },
});

export function subscriptionRoutes(app: OpenAPIHono<SandboxEnv>, deps: ConsoleDeps): void {
  app.openapi(create, (c) => c.json(createSubscription({ ctx: consoleCtx(c, deps), input: c.req.valid("json") }), 201));
  app.openapi(list, (c) => c.json({ subscriptions: listSubscriptions({ ctx: consoleCtx(c, deps) }) }, 200));
  app.openapi(read, (c) => {
    const row = ownSubscription(c.get("ctx"), ownerOf(c), c.req.valid("param").id ?? "");
    return c.json(subscriptionView(row), 200);
  });
  app.openapi(remove, (c) => {
    const { id } = deleteSubscription({ ctx: consoleCtx(c, deps), input: { id: c.req.valid("param").id ?? "" } });
    return c.json({ id, deleted: true }, 200);
  });
}
