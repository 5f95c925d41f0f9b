import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { listPlatformEvents } from "../../webhooks/platform/list-platform-events.js";
import {
  activatePlatformSecret,
  getPlatformReceiver,
  loadPlatformSecret,
} from "../../webhooks/platform/platform-secrets.js";
import { param, routeKit, valid } from "../route-kit.js";
import * as s from "./webhooks.schemas.js";

const { bodyRoute, route } = routeKit("/owner/v1/webhooks", "webhooks");

/** The platform's deliveries to this company (§6.3–§6.6): where to point them, the secrets they are signed with. */
export function platformWebhookRoutes(app: GatewayApp, ctx: GatewayContext): void {
  const companyOf = (c: { get(key: "owner"): { companyId: string } }) => c.get("owner").companyId;
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
}
