import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { jsonBody } from "../../../http/json-body.js";
import type { SandboxEnv } from "../../env.js";
import type { SandboxAdmin } from "../sandbox-admin.js";
import { idParam, newCompanySchema, newKeySchema } from "./schemas.js";

const company = createRoute({
  method: "post",
  path: "/sandbox/admin/companies",
  summary: "Create a company with people and contractor records",
  middleware: [jsonBody()] as const,
  request: { body: { content: { "application/json": { schema: newCompanySchema } }, required: true } },
  responses: { 201: { description: "the company" } },
});
const key = createRoute({
  method: "post",
  path: "/sandbox/admin/keys",
  summary: "Issue a svc_test_ key (shown once)",
  middleware: [jsonBody()] as const,
  request: { body: { content: { "application/json": { schema: newKeySchema } }, required: true } },
  responses: { 201: { description: "the key" } },
});
const revoke = createRoute({
  method: "post",
  path: "/sandbox/admin/keys/{key_id}/revoke",
  summary: "Revoke a key",
  request: { params: idParam("key_id") },
  responses: { 200: { description: "revoked" } },
});

const ownerSession = createRoute({
  method: "post",
  path: "/sandbox/admin/companies/{company_id}/owner-session",
  summary: "An owner console session for a company (§5.7)",
  request: { params: idParam("company_id") },
  responses: { 201: { description: "{sessionToken, companyId, expiresAt}" } },
});

/** Companies and keys, so benchmarks can make many credentials over many owners. */
export function credentialRoutes(app: OpenAPIHono<SandboxEnv>, admin: SandboxAdmin): void {
  app.openapi(company, (c) => c.json(admin.createCompany(c.req.valid("json")), 201));
  app.openapi(key, (c) => c.json(admin.createKey(c.req.valid("json")), 201));
  app.openapi(ownerSession, (c) => c.json(admin.ownerSession(c.req.valid("param").company_id ?? ""), 201));
  app.openapi(revoke, (c) => c.json(admin.revokeKey(c.req.valid("param").key_id ?? ""), 200));
}
