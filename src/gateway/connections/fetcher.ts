import { MAX_BODY_BYTES } from "../../http/json-body.js";
import { createGuardedFetch, type GuardedFetch, type Resolver } from "../../net/index.js";
import type { GatewayContext } from "../context.js";
import { SerialPump } from "../coordination/serial-pump.js";
import { DEFAULT_SEND_RETRY, type SendRetryPolicy } from "../forwarding/send-retry.js";
import { type OutageRetry, OutageRetryClosedError } from "../outage/index.js";
import type { FetcherPort } from "../running.js";
import type { SubmissionRow } from "../storage/submissions/index.js";
import { attemptFetch, type FetchAttemptDeps, failFetch, retryFetch } from "./fetch-attempt.js";
import { FetchPace } from "./fetch-pace.js";
import { ConnectionResolver, type ResolvedConnection } from "./resolved-connection.js";

export interface FetcherOptions {
  /** How long the vendor's API has to answer, in all (default 10 s, as a webhook endpoint has). */
  timeoutMs?: number;
  /** The retry schedule (default forwarding's, §7: docs/forwarding.md "Outcomes and retries"). */
  retry?: Partial<SendRetryPolicy>;
  /** The span a connection's `perMinute` counts over (default a minute; tests shorten it). */
  minuteMs?: number;
  /** Fetches in flight at once in this process, over every connection (default 16). */
  maxInFlight?: number;
  /** The safety net: how often the database is read for due rows (default 5 s). */
  pollMs?: number;
  /** Name resolution for the outbound guard (tests). */
  resolve?: Resolver;
  random?: () => number;
}

/** Rows read per look, beyond those in flight. */
const PAGE = 100;
/** Looks per pump past connections whose rate holds them back. */
const LOOKS = 3;

/**
 * Fetches notified records (docs/connections.md, "Fetch after notify"): the `fetching` rows a hook stored (Meta Lead
 * Ads, LinkedIn, Yelp, Acuity name a record, never send it) are read back from the vendor's API, one GET each, and
 * stored as the records their connection's profile makes of them (fetch-attempt.ts). One per gateway process, started
 * and closed with it like the webhook dispatcher; several processes on one database need no election (D-321): each
 * claims a row with a conditional update and a lease before it fetches, and every outcome is written under that lease.
 * Each connection is held to its `fetch.perMinute` (fetch-pace.ts). Woken by a hook that stored rows, by its own
 * timers (a retry, a rate's next slot) and by a poll, which also finds other processes' rows and expired leases.
 * An outage of the database is waited out (D-338): the pump's reads and claims wait for it and go on, a vendor's answer
 * is kept until its outcome commits, and the database is read again as soon as it is back, so a fetch due meanwhile
 * goes then.
 */
export class Fetcher implements FetcherPort {
  readonly #ctx: GatewayContext;
  readonly #egress: GuardedFetch;
  readonly #deps: FetchAttemptDeps;
  readonly #resolver: ConnectionResolver;
  readonly #pace: FetchPace;
  readonly #leaseMs: number;
  readonly #maxInFlight: number;
  readonly #pollMs: number;
  /** Rows being fetched here, whose outcome is not committed yet. */
  readonly #busy = new Set<string>();
  readonly #active = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #poll: NodeJS.Timeout | undefined;
  #closed = false;
  /** One pump at a time (its reads are asynchronous: two would launch one row twice). */
  readonly #pumpRuns = new SerialPump(
    () => this.#pump(),
    () => this.#closed,
    (error) => this.#ctx.log.error({ err: error }, "fetcher pump failed"),
  );
  readonly #closedSignal = new AbortController();
  readonly #outage: OutageRetry;
  #forgetRecovery: (() => void) | undefined;

  constructor(ctx: GatewayContext, options: FetcherOptions = {}) {
    this.#ctx = ctx;
    this.#outage = ctx.outages.retry({ name: "connections fetcher", signal: this.#closedSignal.signal });
    const timeoutMs = options.timeoutMs ?? 10_000;
    // The webhooks' policy: the SSRF rules of the mode (sandbox mode reaches loopback as webhooks may) and its
    // allow-list (docs/webhooks-gateway.md, "URL").
    this.#egress = createGuardedFetch({
      policy: ctx.running.outboundPolicy,
      timeoutMs,
      // A record is at most what a hook may post (§8's 1 MB).
      maxResponseBytes: MAX_BODY_BYTES,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
    this.#deps = {
      ctx,
      egress: this.#egress,
      retry: { ...DEFAULT_SEND_RETRY, ...options.retry },
      random: options.random ?? Math.random,
      closing: () => this.#closed,
      store: (step) => this.#outage.run(step),
    };
    this.#resolver = new ConnectionResolver(ctx);
    this.#pace = new FetchPace(options.minuteMs ?? 60_000);
    // Past the answer's time limit, room to map and commit: a lease that ran out lets another process fetch again.
    this.#leaseMs = timeoutMs + 30_000;
    this.#maxInFlight = Math.max(1, options.maxInFlight ?? 16);
    this.#pollMs = options.pollMs ?? 5_000;
  }

  /** Fetches what is due (rows an earlier process left included) and keeps looking. */
  start(): void {
    this.#poll = setInterval(() => this.#pumpRuns.schedule(), this.#pollMs);
    this.#poll.unref();
    // The rows as the database has them once it is back: what fell due meanwhile is fetched at once.
    this.#forgetRecovery = this.#ctx.outages.onRecovered((store) => {
      if (store === "database") this.#pumpRuns.schedule();
    });
    this.#pumpRuns.schedule();
  }

  /** Rows were stored due at `dueAt` (the context's clock). */
  notify(dueAt: number): void {
    this.#wakeIn(dueAt - this.#ctx.now().getTime());
  }

  /**
   * Stops fetching: a pump under way is waited for, requests in flight are abandoned (their rows are given back, due
   * at once at the next start, no attempt spent) and outcomes being committed finish. Call before the database closes.
   */
  async close(): Promise<void> {
    this.#closed = true;
    // Steps waiting for the database give up: their rows' leases run out, and they are fetched again.
    this.#closedSignal.abort();
    this.#forgetRecovery?.();
    clearTimeout(this.#timer);
    clearInterval(this.#poll);
    await this.#pumpRuns.settled();
    this.#egress.close();
    await Promise.allSettled([...this.#active]);
  }

  #wakeIn(delayMs: number): void {
    if (this.#closed) return;
    if (delayMs <= 0) {
      this.#pumpRuns.schedule();
      return;
    }
    const at = Date.now() + delayMs;
    if (at >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timerAt = Number.POSITIVE_INFINITY;
      this.#pumpRuns.schedule();
    }, delayMs);
    this.#timer.unref();
  }

  /** Claims and launches what may be fetched now; arms a timer for the earliest connection whose rate holds it. */
  async #pump(): Promise<void> {
    const held = new Set<string>();
    const connections = new Map<string, ResolvedConnection | string>();
    let wake = Number.POSITIVE_INFINITY;
    for (let look = 0; look < LOOKS && !this.#closed; look++) {
      if (this.#busy.size >= this.#maxInFlight) return; // a completion pumps again
      const rows = await this.#outage.run(() =>
        this.#ctx.submissions.dueFetches(this.#ctx.now().getTime(), PAGE + this.#busy.size, [...held]),
      );
      let heldMore = false;
      for (const row of rows) {
        if (this.#closed || this.#busy.size >= this.#maxInFlight) return;
        if (this.#busy.has(row.id) || held.has(row.connectionId ?? "")) continue;
        const connection = await this.#connectionOf(row, connections);
        if (connection === undefined) continue;
        if (typeof connection === "string") {
          await this.#launch(row, connection);
          continue;
        }
        const perMinute = connection.declarations.fetch?.perMinute ?? 1;
        const now = Date.now();
        const allowedAt = this.#pace.allowedAt(connection.row.id, perMinute, now);
        if (allowedAt > now) {
          held.add(connection.row.id);
          heldMore = true;
          // +Infinity: a slot it needs is in flight, and its answer pumps again.
          if (Number.isFinite(allowedAt)) wake = Math.min(wake, allowedAt);
          continue;
        }
        await this.#launch(row, connection);
      }
      if (!heldMore || rows.length < PAGE) break;
    }
    if (Number.isFinite(wake)) this.#wakeIn(wake - Date.now());
  }

  /**
   * The row's connection (read once per pump), or why its record can no longer be fetched (revoked, gone), or
   * undefined when it cannot be told now (a preset this gateway no longer ships: the row waits for it).
   */
  async #connectionOf(
    row: SubmissionRow,
    known: Map<string, ResolvedConnection | string>,
  ): Promise<ResolvedConnection | string | undefined> {
    const id = row.connectionId;
    if (id === null) return "the submission came through no connection";
    const seen = known.get(id);
    if (seen !== undefined) return seen;
    const stored = await this.#outage.run(() => this.#ctx.connections.get(id));
    let connection: ResolvedConnection | string;
    if (!stored) connection = "the connection is gone";
    else if (stored.revokedAt !== null) connection = "the connection was revoked before its record was fetched";
    else {
      try {
        connection = this.#resolver.resolve(stored);
      } catch (error) {
        this.#ctx.log.warn({ connectionId: id, err: error }, "notified records wait: the connection cannot be read");
        return undefined;
      }
    }
    known.set(id, connection);
    return connection;
  }

  /**
   * Claims the row and fetches it while the pump goes on; `connection` a reason instead: the row's record can no longer
   * be fetched, and the row fails with it.
   */
  async #launch(row: SubmissionRow, connection: ResolvedConnection | string): Promise<void> {
    const now = this.#ctx.now().getTime();
    if (!(await this.#outage.run(() => this.#ctx.submissions.claimFetch(row.id, now, this.#leaseMs)))) return;
    const leaseUntil = now + this.#leaseMs;
    this.#busy.add(row.id);
    const fetching = typeof connection === "string" ? undefined : connection;
    const perMinute = fetching?.declarations.fetch?.perMinute ?? 1;
    const answered = fetching ? this.#pace.record(fetching.row.id, perMinute, Date.now()) : () => {};
    const run = (async () => {
      try {
        const result =
          typeof connection === "string"
            ? await failFetch(this.#deps, row, leaseUntil, connection)
            : await attemptFetch(this.#deps, row, leaseUntil, connection, () => answered(Date.now()));
        if (result.pauseMs !== undefined && fetching) this.#pace.pause(fetching.row.id, Date.now() + result.pauseMs);
        if (result.nextAttemptAt !== undefined) this.notify(result.nextAttemptAt);
      } catch (error) {
        // Closed while its outcome waited for the database: the lease runs out and the row is fetched again.
        if (error instanceof OutageRetryClosedError) return;
        this.#ctx.log.error({ submissionId: row.id, err: error }, "notified record fetch failed");
        const reason = `the gateway could not fetch the record: ${error instanceof Error ? error.message : String(error)}`;
        // Written only while the lease is still this one's and the row still fetching; else its lease runs out.
        await retryFetch(this.#deps, row, leaseUntil, reason).catch(() => undefined);
      } finally {
        answered(Date.now());
        this.#busy.delete(row.id);
        this.#pumpRuns.schedule();
      }
    })();
    this.#active.add(run);
    void run.finally(() => this.#active.delete(run));
  }
}
