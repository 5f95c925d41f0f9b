import { badRequest } from "../../http/errors.js";
import { validateWebhookUrl } from "../../net/index.js";
import type { GatewayContext } from "../context.js";
import type { Severity } from "./conditions.js";
import {
  type AlertSecrets,
  type AlertSettings,
  type ChannelName,
  openSecrets,
  resolveSettings,
  sealSecrets,
} from "./settings.js";

/** A change of the settings, as the owner API validated it: what is left out keeps its value; null turns off. */
export interface AlertSettingsChange {
  thresholds?: Record<string, Record<string, number | boolean | undefined> | undefined> | undefined;
  routes?: Partial<Record<Severity, ChannelName[]>> | undefined;
  renotifyMinutes?: number | undefined;
  channels?:
    | {
        email?: { to: string[] } | null | undefined;
        webhook?: { url: string; secret?: string | undefined } | null | undefined;
        slack?: { url: string } | null | undefined;
        teams?: { url: string } | null | undefined;
      }
    | undefined;
}

/** The company's settings as the owner sees them: no secret, the chat URLs by a hint only (D-345). */
export async function getAlertSettings(input: { ctx: GatewayContext; companyId: string }) {
  const row = await input.ctx.alerts.settingsOf(input.companyId);
  return settingsView(resolveSettings(input.ctx, input.companyId, row));
}

/**
 * Changes a company's alert settings (admin): thresholds per condition, channels per severity, the channels'
 * addresses. Every URL a notice will be posted to is checked now by the webhooks' SSRF rules (docs/webhooks.md), and
 * again at every send by the guard.
 */
export async function updateAlertSettings(input: {
  ctx: GatewayContext;
  companyId: string;
  change: AlertSettingsChange;
}) {
  const { ctx, companyId, change } = input;
  const row = await ctx.alerts.settingsOf(companyId);
  const thresholds = structuredClone(row?.thresholds ?? {});
  for (const [condition, fields] of Object.entries(change.thresholds ?? {})) {
    if (!fields) continue;
    const own = { ...(thresholds[condition] ?? {}) };
    for (const [field, value] of Object.entries(fields)) if (value !== undefined) own[field] = value;
    thresholds[condition] = own;
  }
  const channels = { ...(row?.channels ?? {}) } as Record<string, unknown>;
  const secrets: AlertSecrets = openSecrets(ctx, companyId, row?.sealedSecrets ?? null);
  const given = change.channels ?? {};
  if (given.email !== undefined) {
    if (given.email === null) delete channels.email;
    else channels.email = { to: given.email.to };
  }
  if (given.webhook !== undefined) {
    if (given.webhook === null) {
      delete channels.webhook;
      secrets.webhookSecret = undefined;
    } else {
      channels.webhook = { url: checkedUrl(ctx, given.webhook.url, "channels.webhook.url") };
      secrets.webhookSecret = given.webhook.secret ?? secrets.webhookSecret;
      if (!secrets.webhookSecret) {
        throw badRequest("channels.webhook.secret: required to set up the webhook (32-200 characters)", {
          field: "channels.webhook.secret",
        });
      }
    }
  }
  for (const chat of ["slack", "teams"] as const) {
    const value = given[chat];
    if (value === undefined) continue;
    const key = chat === "slack" ? "slackUrl" : "teamsUrl";
    secrets[key] = value === null ? undefined : checkedUrl(ctx, value.url, `channels.${chat}.url`);
  }
  await ctx.alerts.saveSettings({
    companyId,
    thresholds,
    routes: { ...(row?.routes ?? {}), ...(stripUndefined(change.routes ?? {}) as Record<string, string[]>) },
    channels,
    sealedSecrets: sealSecrets(ctx, companyId, secrets),
    renotifyMinutes:
      change.renotifyMinutes ?? row?.renotifyMinutes ?? resolveSettings(ctx, companyId, row).renotifyMinutes,
    updatedAt: ctx.now().toISOString(),
  });
  return getAlertSettings({ ctx, companyId });
}

function checkedUrl(ctx: GatewayContext, url: string, field: string): string {
  const check = validateWebhookUrl(url, ctx.running.outboundPolicy);
  if (!check.ok) throw badRequest(`${field}: ${check.message}`, { field, reason: check.reason });
  return check.url.toString();
}

function stripUndefined<T extends object>(value: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

/** A chat URL carries its token in the path: only the host and the last four characters are shown. */
function hint(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host}/…${parsed.pathname.slice(-4)}`;
}

function settingsView(settings: AlertSettings) {
  return {
    thresholds: settings.thresholds,
    routes: settings.routes,
    renotifyMinutes: settings.renotifyMinutes,
    channels: {
      email: settings.email,
      webhook: settings.webhook ? { url: settings.webhook.url } : null,
      slack: settings.slack ? { urlHint: hint(settings.slack.url) } : null,
      teams: settings.teams ? { urlHint: hint(settings.teams.url) } : null,
    },
    updatedAt: settings.updatedAt,
  };
}
