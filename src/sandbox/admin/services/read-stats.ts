import { asc, count } from "drizzle-orm";
import type { SandboxCtx } from "../../context.js";
import {
  apiKeys,
  appointments,
  type DeliveryStatus,
  events,
  leadSubmissions,
  leads,
  webhookAttempts,
  webhookDeliveries,
  webhookSubscriptions,
} from "../../db/schema/index.js";
import type { LimitsConfig } from "../../limits/config.js";
import type { FaultTally, Tally, TrafficStats } from "../../traffic-stats.js";

export interface SandboxStats {
  limits: LimitsConfig;
  traffic: {
    keys: Array<{ keyId: string; companyId: string | null } & Tally>;
    owners: Array<{ companyId: string } & Tally>;
    ips: Array<{ ip: string } & Tally>;
    health: Array<{ ip: string } & Tally>;
    /** Sums over `keys`: a run that claims zero 429s checks `limited` here. */
    totals: { admitted: number; limited: number };
  };
  faults: FaultTally;
  leads: { count: number; submissions: number };
  appointments: Array<{
    appointmentId: string;
    companyId: string;
    leadId: string;
    keyId: string | null;
    idempotencyKey: string;
    replays: number;
    version: number;
    createdAt: string;
  }>;
  events: { count: number; byName: Record<string, number> };
  /** §6 deliveries: a run checks that nothing is pending or dead-lettered after the drain. */
  webhooks: { subscriptions: number; deliveries: Record<DeliveryStatus, number>; attempts: number };
}

/** Admin: what a referee needs after a test or benchmark (§8 limits, "no appointment created twice"). */
export function readStats({
  ctx,
  input,
}: {
  ctx: SandboxCtx;
  input: { traffic: TrafficStats; limits: LimitsConfig };
}): SandboxStats {
  const owners = new Map(
    ctx.db
      .select({ keyId: apiKeys.keyId, companyId: apiKeys.companyId })
      .from(apiKeys)
      .all()
      .map((k) => [k.keyId, k.companyId]),
  );
  const keys = input.traffic
    .byLevel("key")
    .map(({ id, ...t }) => ({ keyId: id, companyId: owners.get(id) ?? null, ...t }));
  const eventCounts = ctx.db.select({ event: events.event, n: count() }).from(events).groupBy(events.event).all();
  const deliveryCounts = ctx.db
    .select({ status: webhookDeliveries.status, n: count() })
    .from(webhookDeliveries)
    .groupBy(webhookDeliveries.status)
    .all();
  return {
    limits: input.limits,
    traffic: {
      keys,
      owners: input.traffic.byLevel("owner").map(({ id, ...t }) => ({ companyId: id, ...t })),
      ips: input.traffic.byLevel("ip").map(({ id, ...t }) => ({ ip: id, ...t })),
      health: input.traffic.byLevel("health").map(({ id, ...t }) => ({ ip: id, ...t })),
      totals: keys.reduce((sum, k) => ({ admitted: sum.admitted + k.admitted, limited: sum.limited + k.limited }), {
        admitted: 0,
        limited: 0,
      }),
    },
    faults: { ...input.traffic.faults },
    leads: {
      count: ctx.db.select({ n: count() }).from(leads).get()?.n ?? 0,
      submissions: ctx.db.select({ n: count() }).from(leadSubmissions).get()?.n ?? 0,
    },
    appointments: ctx.db
      .select({
        appointmentId: appointments.id,
        companyId: appointments.companyId,
        leadId: appointments.leadId,
        keyId: appointments.keyId,
        idempotencyKey: appointments.idempotencyKey,
        replays: appointments.replays,
        version: appointments.version,
        createdAt: appointments.createdAt,
      })
      .from(appointments)
      .orderBy(asc(appointments.createdAt), asc(appointments.id))
      .all(),
    events: {
      count: eventCounts.reduce((sum, e) => sum + e.n, 0),
      byName: Object.fromEntries(eventCounts.map((e) => [e.event, e.n])),
    },
    webhooks: {
      subscriptions: ctx.db.select({ n: count() }).from(webhookSubscriptions).get()?.n ?? 0,
      deliveries: {
        pending: 0,
        succeeded: 0,
        dead_lettered: 0,
        ...Object.fromEntries(deliveryCounts.map((d) => [d.status, d.n])),
      },
      attempts: ctx.db.select({ n: count() }).from(webhookAttempts).get()?.n ?? 0,
    },
  };
}
