import { SIGNATURE_SCHEME } from "../../../contract/signing.js";
import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { EVENTS_BY_PARTNER_TYPE, TEST_EVENT } from "../../webhooks/catalogue.js";
import { routeKit } from "../route-kit.js";
import * as s from "./webhooks.schemas.js";

const { route } = routeKit("/owner/v1/webhooks", "webhooks");

/** The events each partner type may subscribe to (§1), and the signature scheme (§6.3). */
export function webhookEventRoutes(app: GatewayApp, _ctx: GatewayContext): void {
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
}
