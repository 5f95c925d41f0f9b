import { acknowledgeAlert, listAlerts, muteAlert } from "../../alerts/list-alerts.js";
import { getAlertSettings, updateAlertSettings } from "../../alerts/settings-admin.js";
import type { GatewayApp } from "../../app-env.js";
import type { GatewayContext } from "../../context.js";
import { param, routeKit, valid } from "../route-kit.js";
import * as s from "./alerts.schemas.js";

const { bodyRoute, route } = routeKit("/owner/v1", "owner");

/**
 * Alerts (docs/alerts.md): the company's alerts and their history, acknowledged or muted by an admin; the alert
 * settings — thresholds per condition, channels per severity — read by any owner, changed by an admin.
 */
export function alertRoutes(app: GatewayApp, ctx: GatewayContext): void {
  app.openapi(
    route("get", "/alerts", {
      summary: "List alerts, newest first (open, acknowledged, resolved)",
      role: "viewer",
      ok: s.alertList,
      query: s.alertQuery,
    }),
    async (c) => {
      const query = valid(c, s.alertQuery, "query");
      return c.json(await listAlerts({ ctx, companyId: c.get("owner").companyId, ...query }), 200);
    },
  );

  app.openapi(
    route("post", "/alerts/{alertId}/acknowledge", {
      summary: "Acknowledge an alert: no reminders; it still resolves by itself",
      role: "admin",
      ok: s.alert,
    }),
    async (c) =>
      c.json(await acknowledgeAlert({ ctx, companyId: c.get("owner").companyId, id: param(c, "alertId") }), 200),
  );

  app.openapi(
    bodyRoute("post", "/alerts/{alertId}/mute", s.muteBody, {
      summary: "Mute an alert until a time: no notice of it meanwhile",
      role: "admin",
      ok: s.alert,
    }),
    async (c) => {
      const { until } = valid(c, s.muteBody);
      const id = param(c, "alertId");
      return c.json(await muteAlert({ ctx, companyId: c.get("owner").companyId, id, until }), 200);
    },
  );

  app.openapi(
    route("get", "/alert-settings", { summary: "The alert settings", role: "viewer", ok: s.alertSettings }),
    async (c) => c.json(await getAlertSettings({ ctx, companyId: c.get("owner").companyId }), 200),
  );

  app.openapi(
    bodyRoute("put", "/alert-settings", s.alertSettingsBody, {
      summary: "Change the alert settings (what is left out keeps its value)",
      description:
        "Thresholds per condition, the channels of each severity, the re-notify interval and the channels' " +
        "addresses. Slack's and Teams' incoming-webhook URLs and the webhook's signing secret are never shown again.",
      role: "admin",
      ok: s.alertSettings,
    }),
    async (c) =>
      c.json(
        await updateAlertSettings({ ctx, companyId: c.get("owner").companyId, change: valid(c, s.alertSettingsBody) }),
        200,
      ),
  );
}
