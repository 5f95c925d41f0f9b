import { and, asc, eq, inArray, lte, min } from "drizzle-orm";
import { unixSeconds } from "../../../contract/signing.js";
import { webhookDeliveries, webhookSubscriptions } from "../../../db/schema/index.js";
import type { WebhookDeliveryRow } from "../../../db/schema/webhook-deliveries.js";
import type { WebhookSubscriptionRow } from "../../../db/schema/webhook-subscriptions.js";
import { createGuardedFetch, type GuardedFetch, type OutboundPolicy, type Resolver } from "../../../net/index.js";
import type { GatewayContext } from "../../context.js";
import { purgePlatformDeliveries } from "../platform/db-replay-store.js";
import { attemptDelivery } from "./attempt.js";
import { DEFAULT_DISABLE_POLICY, type DisablePolicy, recordAttempt } from "./record-attempt.js";
import { DEFAULT_JITTER, DEFAULT_RETRY_SCHEDULE_MS, MAX_RETRY_AFTER_MS, type RetryPolicy } from "./retry-policy.js";

export interface DispatcherOptions {
  /** Delays before attempts 2, 3, … (ms); the default is the documented schedule (retry-policy.ts). */
  retrySchedule?: readonly number[];
  jitter?: number;
  maxRetryAfterMs?: number;
  /** §6.4.1: 10 s. */
  timeoutMs?: number;
  /** Requests in flight over all endpoints. */
  maxInFlight?: number;
  /** Requests in flight to one healthy endpoint; a failing endpoint gets one at a time. */
  perEndpoint?: number;
  disableAfter?: DisablePolicy;
  /** Extra destinations for the SSRF guard (docs/webhooks.md §7). */
  allowList?: readonly string[];
  /** Name resolution for the guard (tests). */
  resolve?: Resolver;
  /** Safety net: how often the backlog is re-read from the database. */
  pollMs?: number;
  random?: () => number;
}

interface Lane {
  inFlight: number;
  /** Earliest due time (ms) of a pending delivery not yet claimed; undefined when none is known. */
  nextDue: number | undefined;
}

/**
 * Sends the deliveries in webhook_deliveries. One lane per subscription (endpoint): a healthy endpoint may have
 * `perEndpoint` requests in flight, a failing one a single probe, and all of them together `maxInFlight` — so a slow
 * or dead endpoint holds a few slots of the global cap at most and never delays the others (issue 5). Lanes are
 * served round-robin. Work is claimed from the database (status `delivering`) and every outcome is committed before
 * the next attempt, so a crash loses nothing: on start, rows left `delivering` are pending again (one dispatcher per
 * database, like the embedded queue).
 */
export class WebhookDispatcher {
  readonly #ctx: GatewayContext;
  readonly #fetch: GuardedFetch;
  readonly #retry: RetryPolicy;
  readonly #disable: DisablePolicy;
  readonly #maxInFlight: number;
  readonly #perEndpoint: number;
  readonly #pollMs: number;
  readonly #lanes = new Map<string, Lane>();
  readonly #active = new Set<Promise<void>>();
  #inFlight = 0;
  #rotation = 0;
  #pumpQueued = false;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #poll: NodeJS.Timeout | undefined;
  #closed = false;
  readonly policy: OutboundPolicy;

  constructor(ctx: GatewayContext, options: DispatcherOptions = {}) {
    this.#ctx = ctx;
    this.policy = { mode: ctx.settings.mode, ...(options.allowList ? { allowList: options.allowList } : {}) };
    this.#fetch = createGuardedFetch({
      policy: this.policy,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
    this.#retry = {
      schedule: options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE_MS,
      jitter: options.jitter ?? DEFAULT_JITTER,
      maxRetryAfterMs: options.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS,
      random: options.random ?? Math.random,
    };
    this.#disable = options.disableAfter ?? DEFAULT_DISABLE_POLICY;
    this.#maxInFlight = Math.max(1, options.maxInFlight ?? 64);
    this.#perEndpoint = Math.max(1, Math.min(options.perEndpoint ?? 8, this.#maxInFlight));
    this.#pollMs = options.pollMs ?? 5_000;
  }

  /** Resumes what a previous process left (crash included) and starts sending. */
  start(): void {
    this.#ctx.db
      .update(webhookDeliveries)
      .set({ status: "pending" })
      .where(eq(webhookDeliveries.status, "delivering"))
      .run();
    this.#reloadBacklog();
    this.#poll = setInterval(() => this.#maintain(), this.#pollMs);
    this.#poll.unref();
  }

  /** A subscription has (or may have) work due at `dueAt`. */
  notify(subscriptionId: string, dueAt: number): void {
    if (this.#closed) return;
    const lane = this.#lane(subscriptionId);
    lane.nextDue = lane.nextDue === undefined ? dueAt : Math.min(lane.nextDue, dueAt);
    this.#schedulePump();
  }

  /** Stops sending; requests in flight are abandoned and their deliveries left pending for the next start. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    clearInterval(this.#poll);
    this.#fetch.close();
    await Promise.allSettled([...this.#active]);
  }

  stats(): { inFlight: number; lanes: number } {
    return { inFlight: this.#inFlight, lanes: this.#lanes.size };
  }

  #lane(subscriptionId: string): Lane {
    let lane = this.#lanes.get(subscriptionId);
    if (!lane) {
      lane = { inFlight: 0, nextDue: undefined };
      this.#lanes.set(subscriptionId, lane);
    }
    return lane;
  }

  #maintain(): void {
    if (this.#closed) return;
    try {
      this.#reloadBacklog();
      purgePlatformDeliveries({ ctx: this.#ctx, nowSeconds: unixSeconds(Date.now()) });
    } catch (error) {
      this.#ctx.log.error({ err: error }, "webhook dispatcher maintenance failed");
    }
  }

  /** The earliest due time of every subscription with pending work (start, and the periodic safety net). */
  #reloadBacklog(): void {
    const rows = this.#ctx.db
      .select({ subscriptionId: webhookDeliveries.subscriptionId, due: min(webhookDeliveries.nextAttemptAt) })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.status, "pending"))
      .groupBy(webhookDeliveries.subscriptionId)
      .all();
    for (const row of rows) if (row.due !== null) this.notify(row.subscriptionId, row.due);
  }

  #schedulePump(): void {
    if (this.#pumpQueued || this.#closed) return;
    this.#pumpQueued = true;
    setImmediate(() => {
      this.#pumpQueued = false;
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#closed) return;
    const now = Date.now();
    let wake = Number.POSITIVE_INFINITY;
    const entries = [...this.#lanes.entries()];
    const offset = entries.length === 0 ? 0 : this.#rotation++ % entries.length;
    for (let i = 0; i < entries.length && this.#inFlight < this.#maxInFlight; i++) {
      const entry = entries[(offset + i) % entries.length];
      if (!entry) continue;
      const [subscriptionId, lane] = entry;
      if (lane.nextDue === undefined) {
        if (lane.inFlight === 0) this.#lanes.delete(subscriptionId);
        continue;
      }
      if (lane.nextDue > now) {
        wake = Math.min(wake, lane.nextDue);
        continue;
      }
      const due = this.#serve(subscriptionId, lane, now);
      if (due !== undefined) wake = Math.min(wake, due);
    }
    this.#arm(wake, now);
  }

  /** Claims and launches what this lane may send now; returns when it next has work, if later. */
  #serve(subscriptionId: string, lane: Lane, now: number): number | undefined {
    const subscription = this.#ctx.db
      .select()
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.id, subscriptionId))
      .get();
    if (subscription?.status !== "active") {
      // Disabled or deleted: its deliveries wait (or went with it); re-enabling notifies again.
      lane.nextDue = undefined;
      return undefined;
    }
    if (subscription.pausedUntil !== null && subscription.pausedUntil > now) {
      lane.nextDue = Math.max(lane.nextDue ?? now, subscription.pausedUntil);
      return lane.nextDue;
    }
    const limit = subscription.consecutiveFailures > 0 ? 1 : this.#perEndpoint;
    const free = Math.min(limit - lane.inFlight, this.#maxInFlight - this.#inFlight);
    if (free <= 0) return undefined; // a completion pumps again
    const claimed = this.#claim(subscriptionId, now, free);
    lane.nextDue = this.#nextPending(subscriptionId);
    for (const row of claimed) this.#launch(subscription, lane, row);
    return lane.nextDue !== undefined && lane.nextDue > now ? lane.nextDue : undefined;
  }

  #claim(subscriptionId: string, now: number, count: number): WebhookDeliveryRow[] {
    const due = this.#ctx.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.status, "pending"),
          eq(webhookDeliveries.subscriptionId, subscriptionId),
          lte(webhookDeliveries.nextAttemptAt, now),
        ),
      )
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(count);
    const rows = this.#ctx.db
      .update(webhookDeliveries)
      .set({ status: "delivering" })
      .where(and(inArray(webhookDeliveries.id, due), eq(webhookDeliveries.status, "pending")))
      .returning()
      .all();
    return rows.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
  }

  #nextPending(subscriptionId: string): number | undefined {
    const row = this.#ctx.db
      .select({ due: webhookDeliveries.nextAttemptAt })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.subscriptionId, subscriptionId)))
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(1)
      .get();
    return row?.due;
  }

  #launch(subscription: WebhookSubscriptionRow, lane: Lane, row: WebhookDeliveryRow): void {
    lane.inFlight++;
    this.#inFlight++;
    const run = this.#deliver(subscription, row).finally(() => {
      lane.inFlight--;
      this.#inFlight--;
      this.#active.delete(run);
      this.#schedulePump();
    });
    this.#active.add(run);
  }

  async #deliver(subscription: WebhookSubscriptionRow, row: WebhookDeliveryRow): Promise<void> {
    const log = this.#ctx.log;
    try {
      const result = await attemptDelivery(this.#ctx, this.#fetch, subscription, row);
      if (this.#closed) {
        this.#release(row.id);
        return;
      }
      const outcome = recordAttempt(this.#ctx, { retry: this.#retry, disable: this.#disable }, row, result, Date.now());
      if (outcome.kind === "retry") this.notify(row.subscriptionId, outcome.at);
      const line = {
        deliveryRowId: row.id,
        deliveryId: result.deliveryId,
        subscriptionId: row.subscriptionId,
        event: row.event,
        status: result.status,
        ms: result.latencyMs,
        outcome: outcome.kind,
      };
      if (outcome.kind === "delivered") log.debug(line, "webhook delivered");
      else log.info({ ...line, error: result.error }, "webhook attempt failed");
    } catch (error) {
      // Recording failed (the database is closing or broken): leave the delivery for the next start.
      log.error({ err: error, deliveryRowId: row.id }, "webhook attempt could not be recorded");
      this.#release(row.id);
    }
  }

  /** Puts a claimed delivery back, so the next start (or the safety net) sends it. */
  #release(rowId: string): void {
    try {
      this.#ctx.db
        .update(webhookDeliveries)
        .set({ status: "pending" })
        .where(and(eq(webhookDeliveries.id, rowId), eq(webhookDeliveries.status, "delivering")))
        .run();
    } catch {
      // The database is gone; start() resets rows left `delivering`.
    }
  }

  #arm(wake: number, now: number): void {
    if (!Number.isFinite(wake)) return;
    if (this.#timer !== undefined && this.#timerAt <= wake) return;
    clearTimeout(this.#timer);
    this.#timerAt = wake;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.max(0, wake - now),
    );
    this.#timer.unref();
  }
}
