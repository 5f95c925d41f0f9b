import type { GatewayApp } from "../../app-env.js";
import { listConnectionPresets } from "../../connections/list-presets.js";
import type { GatewayContext } from "../../context.js";
import { routeKit } from "../route-kit.js";
import * as s from "./connections.schemas.js";

const { route } = routeKit("/owner/v1", "owner");

/** The catalogue of vendors a connection can be made for (presets/, loaded at start; D-306). */
export function connectionPresetRoutes(app: GatewayApp, ctx: GatewayContext): void {
  app.openapi(
    route("get", "/connection-presets", {
      summary: "The vendors a hook connection can be made for",
      role: "viewer",
      ok: s.connectionPresetList,
    }),
    (c) => c.json({ presets: listConnectionPresets({ ctx }) }, 200),
  );
}
