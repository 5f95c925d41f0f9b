import { PAYLOAD_BODY } from "../../../http/body-limit.js";
import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { suggestProfileForOwner } from "../../profiles-admin/suggestion.js";
import { routeKit, valid } from "../route-kit.js";
import { TOOLING, type ToolingQuota } from "../tooling-quota.js";
import * as s from "./suggestions.schemas.js";

const { bodyRoute } = routeKit("/owner/v1", "owner");

/** Suggested profiles: a mapping to start from for a vendor the gateway has no preset for. */
export function suggestionRoutes(app: GatewayApp, ctx: GatewayContext, tooling: ToolingQuota): void {
  app.openapi(
    bodyRoute("post", "/profile-suggestions", s.suggestionBody, {
      summary: "Suggest a profile from sample payloads",
      description:
        "1 to 20 of a vendor's payloads → a JSONata expression to start from, each canonical field with the paths it " +
        "reads, how sure the suggestion is and why, the paths it left unused and the fields the payloads do not " +
        "carry. Changes nothing: a viewer may run it. Counts against the company's tooling quota (one per payload).",
      role: "viewer",
      ok: s.suggestion,
      limits: PAYLOAD_BODY,
      errors: [...TOOLING, "unprocessable"],
    }),
    async (c) => {
      const { companyId } = c.get("owner");
      const input = valid(c, s.suggestionBody);
      // The body's text as received (jsonBody keeps it): the suggester's thread parses it, not this one.
      const body = await c.req.text();
      return c.json(
        await tooling.run(companyId, input.payloads.length, () => suggestProfileForOwner({ ctx, body })),
        200,
      );
    },
  );
}
