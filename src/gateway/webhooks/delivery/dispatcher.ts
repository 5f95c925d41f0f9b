import { unixSeconds } from "../../../contract/signing.js";
import { createGuardedFetch, type GuardedFetch, type OutboundPolicy, type Resolver } from "../../../net/index.js";
import type { GatewayContext } from "../../context.js";
import { SerialPump } from "../../coordination/serial-pump.js";
import { settledWithin } from "../../coordination/settled-within.js";
import { type OutageRetry, OutageRetryClosedError } from "../../outage/index.js";
import type { TransactionContext } from "../../storage/transaction.js";
import type { DeliveryToSend, WebhookDeliveryRow, WebhookSubscriptionRow } from "../../storage/webhooks/index.js";
import { type AttemptResult, attemptDelivery } from "./attempt.js";
import {
  DEFAULT_JITTER,
  DEFAULT_RETRY_SCHEDULE_MS,
  type DeliveryRetryPolicy,
  MAX_RETRY_AFTER_MS,
} from "./delivery-retry.js";
import { applyAttempt, DEFAULT_DISABLE_POLICY, type DisablePolicy, type RecordedOutcome } from "./record-attempt.js";

export interface DispatcherOptions {
  /** Delays before attempts 2, 3, … (ms); the default is the documented schedule (delivery-retry.ts). */
  retrySchedule?: readonly number[];
  jitter?: number;
  maxRetryAfterMs?: number;
  /** §6.4.1: 10 s. */
  timeoutMs?: number;
  /** Requests in flight to endpoints that have answered 2xx, over all of them. */
  maxInFlight?: number;
  /** Requests in flight to one healthy endpoint; a failing or not yet proven endpoint gets one at a time. */
  perEndpoint?: number;
  /** Single requests in flight to failing or not yet proven endpoints, over all of them (default `maxInFlight`). */
  maxProbes?: number;
  disableAfter?: DisablePolicy;
  /** Extra destinations for the SSRF guard (docs/webhooks.md §7). */
  allowList?: readonly string[];
  /** Name resolution for the guard (tests). */
  resolve?: Resolver;
  /** Safety net: how often the backlog is re-read from the database. */
  pollMs?: number;
  random?: () => number;
  /** Whether it may send now (the elected dispatcher's fence: its lock renewed lately, D-335). */
  mayDispatch?: () => boolean;
  /**
   * Sends nothing before the time it gives (epoch ms, asked at each pump): a dispatcher elected during or just after an
   * outage of the database leaves its predecessor's answered deliveries time to commit their outcomes (D-334).
   */
  sendFrom?: () => number;
}

interface Lane {
  inFlight: number;
  /** The subscription as last read; re-read after its outcomes are committed or when notified. */
  subscription: WebhookSubscriptionRow | undefined;
  /** Deliveries sent or being sent whose outcome is not committed yet: not to be picked again. */
  busy: Set<string>;
  /** Earliest due time (ms) of a pending delivery not yet claimed; undefined when none is known. */
  nextDue: number | undefined;
}

/**
 * Sends the deliveries in webhook_deliveries. One lane per subscription (endpoint). An endpoint that answered its last
 * request with 2xx is healthy: it may have `perEndpoint` requests in flight, all of them together `maxInFlight`. Any
 * other endpoint — failing, or not heard from since this process started — gets a single probe at a time, from a
 * separate pool of `maxProbes`. So a dead endpoint holds one slot, never one of the healthy endpoints' (docs/webhooks-gateway.md: one
 * slow or dead endpoint must not delay deliveries to others), even when it was dead before the process started and
 * its backlog is the first thing read. Lanes are served round-robin. A delivery stays `pending` in the database until
 * its outcome is committed (in-flight ones are held in memory), so a crash loses nothing: the next start sends
 * whatever is pending — at least once; the stable event id lets the vendor recognise a repeat (§6.6). One dispatcher
 * per database, like the embedded queue.
 *
 * Through an outage of the database (D-330): its reads, the bodies' and the outcomes' commits wait it out
 * (OutageRetry: one try at a time, logged once), nothing new is sent meanwhile, and a delivery sent whose outcome
 * could not commit keeps its result in memory until it does — it is never sent again for that (D-334). Once the
 * database is back, the backlog is read again.
 */
export class WebhookDispatcher {
  readonly #ctx: GatewayContext;
  readonly #fetch: GuardedFetch;
  readonly #retry: DeliveryRetryPolicy;
  readonly #disable: DisablePolicy;
  readonly #maxInFlight: number;
  readonly #perEndpoint: number;
  readonly #maxProbes: number;
  readonly #pollMs: number;
  readonly #lanes = new Map<string, Lane>();
  readonly #active = new Set<Promise<void>>();
  #inFlight = 0;
  #probesInFlight = 0;
  /** Subscriptions whose last attempt in this process was answered with 2xx. */
  readonly #healthy = new Set<string>();
  #rotation = 0;
  /** The group commit running now, if any: a close waits for it (and the pump) before the database closes. */
  #flushRun: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #poll: NodeJS.Timeout | undefined;
  #closed = false;
  /** Past the close's grace: what is still in flight is abandoned, its outcome (an abort) not recorded. */
  #abandoned = false;
  /** One pump at a time (its reads are asynchronous: two would launch one row twice). */
  readonly #pumpRuns = new SerialPump(
    () => this.#pump(),
    () => this.#closed,
    (error) => this.#ctx.log.error({ err: error }, "webhook dispatcher pump failed"),
  );
  /** Outcomes waiting for the next group commit. */
  #completed: Array<{ lane: Lane; row: DeliveryToSend; result: AttemptResult; at: number }> = [];
  #flushQueued = false;
  readonly policy: OutboundPolicy;
  /** The reads' retry, and the outcomes' (kept by a dispatcher that stepped down until they commit, D-334). */
  readonly #outage: OutageRetry;
  readonly #outcomes: OutageRetry;
  readonly #aborted = new AbortController();
  readonly #outcomesAborted = new AbortController();
  readonly #mayDispatch: () => boolean;
  readonly #sendFrom: () => number;
  #maintaining = false;
  #forgetRecovery: (() => void) | undefined;

  constructor(ctx: GatewayContext, options: DispatcherOptions = {}) {
    this.#ctx = ctx;
    this.#outage = ctx.outages.retry({ name: "webhook dispatcher", signal: this.#aborted.signal });
    this.#outcomes = ctx.outages.retry({ name: "webhook outcomes", signal: this.#outcomesAborted.signal });
    this.#sendFrom = options.sendFrom ?? (() => 0);
    const fence = options.mayDispatch;
    this.#mayDispatch = () => (fence ? fence() : true) && !ctx.outages.databaseDown();
    this.policy = webhookPolicy(ctx, options);
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
    this.#maxProbes = Math.max(1, options.maxProbes ?? this.#maxInFlight);
    this.#pollMs = options.pollMs ?? 5_000;
  }

  /** Resumes what a previous process left (crash included) and starts sending. */
  async start(): Promise<void> {
    // `delivering` is not written by this dispatcher; a row in that state is taken as pending.
    await this.#wait(() => this.#ctx.webhooks.deliveries.resumeDelivering());
    await this.#reloadBacklog();
    if (this.#closed) return;
    this.#poll = setInterval(() => void this.#maintain(), this.#pollMs); // never rejects
    this.#poll.unref();
    // The backlog as the database has it once it is back: what was due meanwhile is sent at once.
    this.#forgetRecovery = this.#ctx.outages.onRecovered((store) => {
      if (store === "database") void this.#maintain();
    });
  }

  /** One step on the database, waiting out its outages (rejects with OutageRetryClosedError once closed). */
  #wait<T>(step: () => Promise<T>): Promise<T> {
    return this.#outage.run(step);
  }

  /** A subscription has (or may have) work due at `dueAt`. */
  notify(subscriptionId: string, dueAt: number): void {
    if (this.#closed) return;
    const lane = this.#lane(subscriptionId);
    lane.subscription = undefined; // it may have changed (re-enabled, new URL): read it again
    lane.nextDue = lane.nextDue === undefined ? dueAt : Math.min(lane.nextDue, dueAt);
    this.#pumpRuns.schedule();
  }

  /**
   * Stops sending. A pump reading the queues is waited for (it launches nothing once closed), and so is a group
   * commit under way: the database may close right after, and a request sent then would have no outcome recorded (a
   * second delivery at the next start; D-267). Requests in flight get `graceMs` to be answered, and the outcomes of
   * those answered are committed (D-383): a deploy's stop sends nothing twice unless an endpoint is still silent at the
   * end of the grace. Those are abandoned and left pending for the next start.
   *
   * `keepOutcomes` (a dispatcher stepping down while the process lives on, D-334): the outcomes answered and not yet
   * committed keep waiting for the database until they commit — the next dispatcher, elected after the outage, waits
   * for them (`sendFrom`) instead of sending those deliveries again; the promise settles once they are in.
   */
  async close(options: { keepOutcomes?: boolean; graceMs?: number } = {}): Promise<void> {
    this.#closed = true;
    // What waits for the database gives up: a delivery sent whose outcome was not committed is sent again at the next
    // start (at least once, §6.6), as after a crash.
    this.#aborted.abort();
    if (!options.keepOutcomes) this.#outcomesAborted.abort();
    this.#forgetRecovery?.();
    clearTimeout(this.#timer);
    clearInterval(this.#poll);
    await this.#pumpRuns.settled();
    const graceMs = options.graceMs ?? 0;
    if (graceMs > 0 && this.#active.size > 0) await settledWithin([...this.#active], graceMs);
    this.#abandoned = true;
    this.#fetch.close();
    await Promise.allSettled([...this.#active]);
    await this.#flushRun;
    await this.#flush();
  }

  stats(): { inFlight: number; probesInFlight: number; lanes: number } {
    return { inFlight: this.#inFlight, probesInFlight: this.#probesInFlight, lanes: this.#lanes.size };
  }

  #lane(subscriptionId: string): Lane {
    let lane = this.#lanes.get(subscriptionId);
    if (!lane) {
      lane = { inFlight: 0, subscription: undefined, busy: new Set(), nextDue: undefined };
      this.#lanes.set(subscriptionId, lane);
    }
    return lane;
  }

  /** The backlog re-read and the replay store purged; one at a time, waiting out an outage (logged once). */
  async #maintain(): Promise<void> {
    if (this.#closed || this.#maintaining) return;
    this.#maintaining = true;
    try {
      await this.#reloadBacklog();
      await this.#wait(() => this.#ctx.webhooks.purgePlatformDeliveries(unixSeconds(Date.now())));
    } catch (error) {
      if (!(error instanceof OutageRetryClosedError)) {
        this.#ctx.log.error({ err: error }, "webhook dispatcher maintenance failed");
      }
    } finally {
      this.#maintaining = false;
    }
  }

  /** The earliest due time of every subscription with pending work (start, and the periodic safety net). */
  async #reloadBacklog(): Promise<void> {
    const rows = await this.#wait(() => this.#ctx.webhooks.deliveries.backlog());
    for (const row of rows) if (row.due !== null) this.notify(row.subscriptionId, row.due);
  }

  async #pump(): Promise<void> {
    // Not the elected sender any more, or the database is away: nothing new goes (the recovery pumps again).
    if (this.#closed || !this.#mayDispatch()) return;
    const now = Date.now();
    const sendFrom = this.#sendFrom();
    if (now < sendFrom) {
      // Still waiting for the outage's end (Infinity): the recovery pumps again.
      if (Number.isFinite(sendFrom)) this.#arm(sendFrom, now);
      return;
    }
    let wake = Number.POSITIVE_INFINITY;
    const entries = [...this.#lanes.entries()];
    const offset = entries.length === 0 ? 0 : this.#rotation++ % entries.length;
    for (let i = 0; i < entries.length; i++) {
      if (this.#inFlight >= this.#maxInFlight && this.#probesInFlight >= this.#maxProbes) break;
      const entry = entries[(offset + i) % entries.length];
      if (!entry) continue;
      const [subscriptionId, lane] = entry;
      if (lane.nextDue === undefined) {
        // Kept while an outcome awaits its commit: a new lane would not know those rows are taken.
        if (lane.inFlight === 0 && lane.busy.size === 0) this.#lanes.delete(subscriptionId);
        continue;
      }
      if (lane.nextDue > now) {
        wake = Math.min(wake, lane.nextDue);
        continue;
      }
      const due = await this.#serve(subscriptionId, lane, now);
      if (due !== undefined) wake = Math.min(wake, due);
    }
    this.#arm(wake, now);
  }

  /** Picks and launches what this lane may send now; returns when it next has work, if later. */
  async #serve(subscriptionId: string, lane: Lane, now: number): Promise<number | undefined> {
    // A lane at its cap waits for a completion; checked before any read, since every completion pumps every lane.
    if (lane.inFlight >= this.#perEndpoint) return undefined;
    const healthy = this.#healthy.has(subscriptionId);
    if ((!healthy || lane.subscription?.consecutiveFailures) && lane.inFlight >= 1) return undefined;
    lane.subscription ??= await this.#wait(() => this.#ctx.webhooks.subscription(subscriptionId));
    const subscription = lane.subscription;
    if (subscription?.status !== "active") {
      // Disabled or deleted: its deliveries wait (or went with it); re-enabling notifies again.
      lane.nextDue = undefined;
      return undefined;
    }
    if (subscription.pausedUntil !== null && subscription.pausedUntil > now) {
      lane.nextDue = Math.max(lane.nextDue ?? now, subscription.pausedUntil);
      return lane.nextDue;
    }
    const probe = !healthy || subscription.consecutiveFailures > 0;
    const free = probe
      ? Math.min(1 - lane.inFlight, this.#maxProbes - this.#probesInFlight)
      : Math.min(this.#perEndpoint - lane.inFlight, this.#maxInFlight - this.#inFlight);
    if (free <= 0) return undefined; // a completion pumps again
    // The head of the queue, past the deliveries already in flight; one more row tells when the lane is due next.
    const head = (
      await this.#wait(() => this.#ctx.webhooks.queueHead(subscriptionId, free + lane.busy.size + 1))
    ).filter((row) => !lane.busy.has(row.id));
    const picked = head.filter((row) => row.nextAttemptAt <= now).slice(0, free);
    const rest = head[picked.length];
    lane.nextDue = rest?.nextAttemptAt;
    for (const { id } of picked) {
      const row = await this.#wait(() => this.#ctx.webhooks.delivery(id));
      // Closed while reading, or the fence closed: nothing more is sent (close waits for this pump, then the database
      // may close).
      if (this.#closed || !this.#mayDispatch()) break;
      if (row?.status === "pending") this.#launch(subscription, lane, row, probe);
    }
    return lane.nextDue !== undefined && lane.nextDue > now ? lane.nextDue : undefined;
  }

  #launch(subscription: WebhookSubscriptionRow, lane: Lane, row: DeliveryToSend, probe: boolean): void {
    lane.inFlight++;
    lane.busy.add(row.id);
    if (probe) this.#probesInFlight++;
    else this.#inFlight++;
    const run = attemptDelivery(this.#ctx, this.#fetch, subscription, row, this.#outage)
      .then((result) => {
        // Answered within the close's grace: recorded like any other (the close commits it before it returns).
        if (this.#abandoned) return;
        // Known at once, before the commit: the next pump already gives a recovered endpoint its full share.
        if (result.status !== null && result.status >= 200 && result.status < 300)
          this.#healthy.add(row.subscriptionId);
        else if (result.sent) this.#healthy.delete(row.subscriptionId);
        this.#complete({ lane, row, result, at: Date.now() });
      })
      .catch(() => {
        // Closed while its body waited for the database (OutageRetryClosedError): it stays pending, nothing was sent.
        lane.busy.delete(row.id);
      })
      .finally(() => {
        lane.inFlight--;
        if (probe) this.#probesInFlight--;
        else this.#inFlight--;
        this.#active.delete(run);
        this.#pumpRuns.schedule();
      });
    this.#active.add(run);
  }

  /**
   * Outcomes are committed together once per turn of the event loop (group commit): at a few thousand deliveries a
   * second one transaction each would cost more than the requests. Until committed, a delivery stays busy.
   */
  #complete(done: { lane: Lane; row: DeliveryToSend; result: AttemptResult; at: number }): void {
    this.#completed.push(done);
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    setImmediate(() => {
      this.#flushRun = this.#flush(); // never rejects
    });
  }

  async #flush(): Promise<void> {
    this.#flushQueued = false;
    const batch = this.#completed.splice(0);
    if (batch.length === 0) return;
    const policy = { retry: this.#retry, disable: this.#disable };
    // A try after a failed one first looks whether the failed one committed after all (its connection died after its
    // COMMIT went out, D-334): an outcome already there is read back, never written twice.
    const apply = async (tx: TransactionContext, d: (typeof batch)[number], retried: boolean) => {
      if (retried) {
        const current = await tx.webhooks.delivery(d.row.id);
        if (!current || current.attempts > d.row.attempts) return recordedBefore(current);
      }
      return applyAttempt(tx, policy, d.row, d.result, d.at);
    };
    let outcomes: Array<RecordedOutcome | undefined>;
    try {
      let tries = 0;
      outcomes = await this.#outcomes.run(() => {
        const retried = tries++ > 0;
        return this.#ctx.transaction(async (tx) => {
          const applied: Array<RecordedOutcome | undefined> = [];
          for (const d of batch) applied.push(await apply(tx, d, retried));
          return applied;
        });
      });
    } catch (error) {
      if (error instanceof OutageRetryClosedError) {
        // Closing while the database is away: these stay pending, sent again at the next start (§6.6).
        for (const d of batch) d.lane.busy.delete(d.row.id);
        return;
      }
      // One outcome the database refuses must not hold back the others: each on its own. One still refused stays
      // pending and is sent again (at least once; the event id lets the vendor see the repeat).
      outcomes = [];
      for (const d of batch) {
        let tries = 0;
        try {
          outcomes.push(
            await this.#outcomes.run(() => {
              const retried = tries++ > 0;
              return this.#ctx.transaction((tx) => apply(tx, d, retried));
            }),
          );
        } catch (error) {
          if (!(error instanceof OutageRetryClosedError)) {
            this.#ctx.log.error({ err: error, deliveryRowId: d.row.id }, "webhook outcome could not be recorded");
          }
          outcomes.push(undefined);
        }
      }
    }
    batch.forEach((d, i) => {
      d.lane.busy.delete(d.row.id);
      const outcome = outcomes[i];
      // Its failure record (or status) may have changed; a success on a clean record changed nothing.
      const clean = d.lane.subscription?.consecutiveFailures === 0 && d.lane.subscription.pausedUntil === null;
      if (outcome?.kind !== "delivered" || !clean) d.lane.subscription = undefined;
      if (outcome === undefined) {
        this.notify(d.row.subscriptionId, Date.now() + 1_000);
        return;
      }
      if (outcome.kind === "retry") this.notify(d.row.subscriptionId, outcome.at);
      const line = {
        deliveryRowId: d.row.id,
        deliveryId: d.result.deliveryId,
        subscriptionId: d.row.subscriptionId,
        event: d.row.event,
        status: d.result.status,
        ms: d.result.latencyMs,
        outcome: outcome.kind,
      };
      if (outcome.kind === "delivered") this.#ctx.log.debug(line, "webhook delivered");
      else this.#ctx.log.info({ ...line, error: d.result.error }, "webhook attempt failed");
    });
    this.#pumpRuns.schedule();
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
        void this.#pumpRuns.run(); // never rejects
      },
      Math.max(0, wake - now),
    );
    this.#timer.unref();
  }
}

/** What a delivery's committed state says of the outcome an earlier, unheard commit recorded for it. */
function recordedBefore(current: WebhookDeliveryRow | undefined): RecordedOutcome | undefined {
  if (!current) return undefined;
  if (current.status === "delivered") return { kind: "delivered" };
  if (current.status === "pending") return { kind: "retry", at: current.nextAttemptAt };
  return { kind: "dead" };
}

/** Where a context's deliveries may go (SSRF): the mode's rules and the configured allow-list. */
export function webhookPolicy(ctx: GatewayContext, options: Pick<DispatcherOptions, "allowList">): OutboundPolicy {
  return {
    mode: ctx.settings.mode,
    loopbackPorts: ctx.settings.webhookLoopbackPorts,
    ...(options.allowList ? { allowList: options.allowList } : {}),
  };
}
