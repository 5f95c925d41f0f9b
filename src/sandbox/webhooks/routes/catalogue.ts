import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { API_VERSION, SCHEMA_VERSION } from "../../../contract/api-version.js";
import { SIGNATURE_SCHEME } from "../../../contract/signing.js";
import { PARTNER_TYPES } from "../../db/schema/index.js";
import type { SandboxEnv } from "../../env.js";
import { EVENT_CATALOGUE, PARTNER_EVENTS } from "../catalogue.js";
import { consoleAuth } from "../session/console-auth.js";

const route = createRoute({
  method: "get",
  path: "/partner-api/webhook-events",
  summary: "Event catalogue and signature scheme version (§4.3, §6.7)",
  middleware: [consoleAuth()] as const,
  responses: { 200: { description: "{signatureScheme, apiVersion, schemaVersion, events, partnerTypes}" } },
});

/** §4.3: the live event list, and the signature scheme version (`v1`, §6.3.1). */
export function catalogueRoutes(app: OpenAPIHono<SandboxEnv>): void {
  const body = {
    signatureScheme: SIGNATURE_SCHEME,
    apiVersion: API_VERSION,
    schemaVersion: SCHEMA_VERSION,
    events: EVENT_CATALOGUE.map((e) => ({
      ...e,
      partnerTypes: PARTNER_TYPES.filter((type) => PARTNER_EVENTS[type].includes(e.name)),
    })),
    partnerTypes: Object.fromEntries(PARTNER_TYPES.map((type) => [type, [...PARTNER_EVENTS[type]]])),
  };
  app.openapi(route, (c) => c.json(body, 200));
}
