import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { jsonBody } from "../../../http/json-body.js";
import type { SandboxEnv } from "../../env.js";
import { createPartner } from "../services/create-partner.js";
import { listPartners } from "../services/list-partners.js";
import { setPartnerOptIn } from "../services/set-partner-opt-in.js";
import { consoleAuth } from "../session/console-auth.js";
import { type ConsoleDeps, consoleCtx } from "./console-deps.js";
import { newPartnerSchema, partnerOptInSchema, pathParams } from "./schemas.js";

const create = createRoute({
  method: "post",
  path: "/partner-api/partners",
  summary: "Record a partner with its type (§1); its subscriptions inherit the type",
  middleware: [consoleAuth(), jsonBody()] as const,
  request: { body: { content: { "application/json": { schema: newPartnerSchema } }, required: true } },
  responses: { 201: { description: "the partner" } },
});
const list = createRoute({
  method: "get",
  path: "/partner-api/partners",
  summary: "The owner's partners",
  middleware: [consoleAuth()] as const,
  responses: { 200: { description: "{partners}" } },
});
const optIn = createRoute({
  method: "put",
  path: "/partner-api/partners/{id}/completed-projects-opt-in",
  summary: "Opt a distributor in or out of project.completed (§1)",
  middleware: [consoleAuth(), jsonBody()] as const,
  request: {
    params: pathParams("id"),
    body: { content: { "application/json": { schema: partnerOptInSchema } }, required: true },
  },
  responses: { 200: { description: "the partner" } },
});

export function partnerRoutes(app: OpenAPIHono<SandboxEnv>, deps: ConsoleDeps): void {
  app.openapi(create, (c) => c.json(createPartner({ ctx: consoleCtx(c, deps), input: c.req.valid("json") }), 201));
  app.openapi(list, (c) => c.json({ partners: listPartners({ ctx: consoleCtx(c, deps) }) }, 200));
  app.openapi(optIn, (c) => {
    const id = c.req.valid("param").id ?? "";
    const input = { id, ...c.req.valid("json") };
    return c.json(setPartnerOptIn({ ctx: consoleCtx(c, deps), input }), 200);
  });
}
