import type { GatewayApp } from "../../app-env.js";
import { clearCaptures, listCaptures, setCaptureMode } from "../../captures/capture-mode.js";
import type { GatewayContext } from "../../context.js";
import { param, routeKit, valid } from "../route-kit.js";
import * as s from "./captures.schemas.js";

const { bodyRoute, route } = routeKit("/owner/v1", "owner");

/**
 * Capture mode (D-315): a vendor key or a hook connection told to store what its vendor sends, never map or forward
 * it, so the owner sees what arrives and starts a profile from it; its captured payloads, listed and cleared.
 */
export function captureRoutes(app: GatewayApp, ctx: GatewayContext): void {
  for (const [path, name, what] of [
    ["/keys/{keyId}", "keyId", "a vendor key"],
    ["/connections/{connectionId}", "connectionId", "a hook connection"],
  ] as const) {
    const target = (c: { req: { param(name: string): string | undefined } }) =>
      name === "keyId" ? { keyId: param(c, name) } : { connectionId: param(c, name) };

    app.openapi(
      bodyRoute("put", `${path}/capture`, s.captureModeBody, {
        summary: `Put ${what} in capture mode, or take it out`,
        description: "In capture mode what the vendor sends is stored, never mapped or forwarded (D-315).",
        role: "admin",
        ok: s.captureMode,
      }),
      async (c) => {
        const { on } = valid(c, s.captureModeBody);
        return c.json(await setCaptureMode({ ctx, companyId: c.get("owner").companyId, target: target(c), on }), 200);
      },
    );

    app.openapi(
      route("get", `${path}/captures`, {
        summary: `The payloads ${what} captured, newest first`,
        role: "viewer",
        ok: s.captureList,
      }),
      async (c) => c.json(await listCaptures({ ctx, companyId: c.get("owner").companyId, target: target(c) }), 200),
    );

    app.openapi(
      route("delete", `${path}/captures`, {
        summary: `Drop the payloads ${what} captured`,
        role: "admin",
        ok: s.capturesCleared,
      }),
      async (c) => c.json(await clearCaptures({ ctx, companyId: c.get("owner").companyId, target: target(c) }), 200),
    );
  }
}
