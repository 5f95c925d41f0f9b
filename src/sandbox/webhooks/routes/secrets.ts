import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { jsonBody } from "../../../http/json-body.js";
import type { SandboxEnv } from "../../env.js";
import { activateSecret } from "../services/activate-secret.js";
import { rotateSecret } from "../services/rotate-secret.js";
import { consoleAuth } from "../session/console-auth.js";
import { type ConsoleDeps, consoleCtx } from "./console-deps.js";
import { activateSchema, pathParams } from "./schemas.js";

const rotate = createRoute({
  method: "post",
  path: "/partner-api/webhooks/{id}/rotate-secret",
  summary: "A pending secret with the next version, shown once (§6.5.1)",
  middleware: [consoleAuth()] as const,
  request: { params: pathParams("id") },
  responses: { 201: { description: "{id, pendingSecretVersion, secret, currentSecretVersion}" } },
});
const activate = createRoute({
  method: "post",
  path: "/partner-api/webhooks/{id}/activate-secret",
  summary: "Sign new deliveries with the pending version (§6.5.3)",
  middleware: [consoleAuth(), jsonBody()] as const,
  request: {
    params: pathParams("id"),
    body: { content: { "application/json": { schema: activateSchema } }, required: true },
  },
  responses: { 200: { description: "{id, currentSecretVersion, previousSecretVersion, previousSecretValidUntil}" } },
});

export function secretRoutes(app: OpenAPIHono<SandboxEnv>, deps: ConsoleDeps): void {
  app.openapi(rotate, (c) =>
    c.json(rotateSecret({ ctx: consoleCtx(c, deps), input: { id: c.req.valid("param").id ?? "" } }), 201),
  );
  app.openapi(activate, (c) => {
    const input = { id: c.req.valid("param").id ?? "", ...c.req.valid("json") };
    return c.json(activateSecret({ ctx: consoleCtx(c, deps), input }), 200);
  });
}
