import { z } from "@hono/zod-openapi";
import { CONDITIONS, RESOURCE_TYPES, SEVERITIES } from "../../alerts/conditions.js";
import { CHANNELS } from "../../alerts/settings.js";
import { email, id, instant, timestamp } from "./common.schemas.js";

/** Alerts and the company's alert settings (docs/alerts.md; D-340…D-349). */

export const alert = z
  .strictObject({
    id: z.string(),
    condition: z.enum(CONDITIONS),
    resourceType: z.enum(RESOURCE_TYPES),
    resourceId: z.string(),
    severity: z.enum(SEVERITIES),
    status: z.enum(["open", "acknowledged", "resolved"]),
    /** When the condition was first found. */
    openedAt: timestamp,
    /** The last evaluation that still found it. */
    lastSeenAt: timestamp,
    resolvedAt: timestamp.nullable(),
    acknowledgedAt: timestamp.nullable(),
    /** No notice of it before this time. */
    mutedUntil: timestamp.nullable(),
    /** How many of what the condition counts (failed payloads, refused proofs…) since it opened. */
    count: z.number().int(),
    /** What happened and what to do. */
    message: z.string(),
    /** The console page to act on. */
    link: z.string(),
  })
  .openapi("Alert");

export const alertList = z
  .strictObject({ alerts: z.array(alert), nextCursor: z.string().nullable() })
  .openapi("AlertList");

export const alertQuery = z.object({
  status: z.enum(["open", "acknowledged", "resolved"]).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** The last id of the previous page. */
  cursor: id.optional(),
});

export const muteBody = z
  .object({
    /** No notice of the alert before this instant (at most 30 days ahead); the console still lists it. */
    until: instant,
  })
  .openapi("AlertMute");

const minutes = z
  .number()
  .int()
  .min(1)
  .max(7 * 24 * 60);
const enabled = z.boolean();

const thresholds = z.strictObject({
  mapping_failures: z.strictObject({
    enabled,
    rate: z.number().min(0).max(1),
    minCount: z.number().int().min(1).max(100_000),
    windowMinutes: minutes,
  }),
  proof_failures: z.strictObject({ enabled, count: z.number().int().min(1).max(100_000), windowMinutes: minutes }),
  dead_letter_growth: z.strictObject({
    enabled,
    count: z.number().int().min(1).max(100_000),
    windowMinutes: minutes,
  }),
  credential_paused: z.strictObject({ enabled }),
  subscription_disabled: z.strictObject({ enabled }),
  vendor_quiet: z.strictObject({
    enabled,
    multiple: z.number().min(1).max(1_000),
    floorMinutes: minutes,
    minHistory: z.number().int().min(2).max(20),
  }),
  forwarding_latency: z.strictObject({
    enabled,
    p95Seconds: z.number().int().min(1).max(86_400),
    minCount: z.number().int().min(1).max(100_000),
    windowMinutes: minutes,
  }),
});

const routes = z.strictObject({
  warning: z.array(z.enum(CHANNELS)).max(CHANNELS.length),
  critical: z.array(z.enum(CHANNELS)).max(CHANNELS.length),
});

/** An incoming-webhook URL, a credential: never shown again, only its host and last characters. */
const chatUrl = z.url({ protocol: /^https?$/ }).max(2_000);

export const alertSettings = z
  .strictObject({
    thresholds,
    routes,
    renotifyMinutes: minutes,
    channels: z.strictObject({
      email: z.strictObject({ to: z.array(z.string()) }).nullable(),
      webhook: z.strictObject({ url: z.string() }).nullable(),
      slack: z.strictObject({ urlHint: z.string() }).nullable(),
      teams: z.strictObject({ urlHint: z.string() }).nullable(),
    }),
    updatedAt: timestamp.nullable(),
  })
  .openapi("AlertSettings");

/** Every field optional: what is left out keeps its value; `null` turns a channel off. */
export const alertSettingsBody = z
  .object({
    thresholds: z
      .object(Object.fromEntries(Object.entries(thresholds.shape).map(([k, v]) => [k, v.partial().optional()])))
      .partial()
      .optional(),
    routes: routes.partial().optional(),
    renotifyMinutes: minutes.optional(),
    channels: z
      .object({
        email: z
          .object({ to: z.array(email).min(1).max(20) })
          .nullable()
          .optional(),
        /** The company's own endpoint; `secret` (32–200 characters) signs each request (§6.3), kept when left out. */
        webhook: z
          .object({ url: z.string().min(1).max(2_000), secret: z.string().min(32).max(200).optional() })
          .nullable()
          .optional(),
        slack: z.object({ url: chatUrl }).nullable().optional(),
        teams: z.object({ url: chatUrl }).nullable().optional(),
      })
      .optional(),
  })
  .openapi("AlertSettingsRequest");
