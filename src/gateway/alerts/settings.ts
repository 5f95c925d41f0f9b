import type { GatewayContext } from "../context.js";
import type { AlertSettingsRow } from "../storage/alerts/index.js";
import { type Condition, DEFAULT_THRESHOLDS, type Severity, type Thresholds } from "./conditions.js";

/** Where a notice can go beside the console, which lists every alert whatever the routes say. */
export const CHANNELS = ["email", "webhook", "slack", "teams"] as const;
export type ChannelName = (typeof CHANNELS)[number];

/** A company's alert settings, the defaults filled in and its secrets opened: what an evaluation and its notices use. */
export interface AlertSettings {
  thresholds: Thresholds;
  /** Per severity, the channels its notices go to (a channel not set up is skipped). */
  routes: Record<Severity, ChannelName[]>;
  /** An open alert not acknowledged is notified again after this long, at the most often. */
  renotifyMinutes: number;
  email: { to: string[] } | null;
  webhook: { url: string; secret: string } | null;
  slack: { url: string } | null;
  teams: { url: string } | null;
  updatedAt: string | null;
}

/** The channels' secrets, sealed together under the master key and bound to the company (D-345). */
export interface AlertSecrets {
  webhookSecret?: string | undefined;
  slackUrl?: string | undefined;
  teamsUrl?: string | undefined;
}

/** Every severity to every channel set up, but warnings not by e-mail: an inbox is for what costs leads (D-343). */
export const DEFAULT_ROUTES: Readonly<Record<Severity, ChannelName[]>> = {
  critical: ["email", "webhook", "slack", "teams"],
  warning: ["webhook", "slack", "teams"],
};

export const DEFAULT_RENOTIFY_MINUTES = 60;

/** What `sealedSecrets` is bound to: the company's alert settings, never another row's. */
export const secretsRecordId = (companyId: string) => `alert_settings:${companyId}`;

/** The company's settings: its row over the defaults, its secrets opened. */
export async function alertSettingsOf(ctx: GatewayContext, companyId: string): Promise<AlertSettings> {
  return resolveSettings(ctx, companyId, await ctx.alerts.settingsOf(companyId));
}

export function resolveSettings(
  ctx: Pick<GatewayContext, "sealer">,
  companyId: string,
  row: AlertSettingsRow | undefined,
): AlertSettings {
  const secrets = openSecrets(ctx, companyId, row?.sealedSecrets ?? null);
  const channels = (row?.channels ?? {}) as { email?: { to: string[] }; webhook?: { url: string } };
  return {
    thresholds: mergeThresholds(row?.thresholds ?? {}),
    routes: { ...DEFAULT_ROUTES, ...(row?.routes as Partial<Record<Severity, ChannelName[]>> | undefined) },
    renotifyMinutes: row?.renotifyMinutes ?? DEFAULT_RENOTIFY_MINUTES,
    email: channels.email?.to.length ? { to: channels.email.to } : null,
    webhook:
      channels.webhook && secrets.webhookSecret ? { url: channels.webhook.url, secret: secrets.webhookSecret } : null,
    slack: secrets.slackUrl ? { url: secrets.slackUrl } : null,
    teams: secrets.teamsUrl ? { url: secrets.teamsUrl } : null,
    updatedAt: row?.updatedAt ?? null,
  };
}

/** The defaults, each condition's fields overridden by what the owner stored (unknown fields ignored). */
export function mergeThresholds(stored: Record<string, Record<string, number | boolean>>): Thresholds {
  const merged = structuredClone(DEFAULT_THRESHOLDS) as Thresholds;
  for (const condition of Object.keys(merged) as Condition[]) {
    const own = stored[condition];
    if (!own) continue;
    const target = merged[condition] as Record<string, number | boolean>;
    for (const [field, value] of Object.entries(own)) {
      if (field in target && typeof value === typeof target[field]) target[field] = value;
    }
  }
  return merged;
}

export function openSecrets(
  ctx: Pick<GatewayContext, "sealer">,
  companyId: string,
  sealed: string | null,
): AlertSecrets {
  if (sealed === null) return {};
  return JSON.parse(ctx.sealer.open(sealed, secretsRecordId(companyId))) as AlertSecrets;
}

export function sealSecrets(
  ctx: Pick<GatewayContext, "sealer">,
  companyId: string,
  secrets: AlertSecrets,
): string | null {
  const kept = Object.fromEntries(Object.entries(secrets).filter(([, v]) => v !== undefined));
  return Object.keys(kept).length === 0 ? null : ctx.sealer.seal(JSON.stringify(kept), secretsRecordId(companyId));
}
