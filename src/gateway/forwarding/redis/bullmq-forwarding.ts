import { randomUUID } from "node:crypto";
import type { Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { GatewayContext } from "../../context.js";
import {
  databaseEligibility,
  LeaderLock,
  Leadership,
  ready,
  redisConnection,
  redisPauseBoard,
} from "../../coordination/index.js";
import { type OutageRetry, OutageRetryClosedError } from "../../outage/index.js";
import type { SubmissionRow, SubmissionStore } from "../../storage/submissions/index.js";
import { SubmissionAttempt } from "../attempt.js";
import { Dispatcher } from "../dispatcher.js";
import type { ForwardingDriver } from "../driver.js";
import type { ForwarderOptions } from "../forwarder.js";
import type { LimiterHistory } from "../hierarchy.js";
import { SettlementWaiters } from "../waiters.js";
import {
  acceptedMessage,
  DEFAULT_PREFIX,
  type ForwardingKeys,
  forwardingKeys,
  parseAccepted,
  webhookDueMessage,
} from "./keys.js";
import { LimiterMirror } from "./limiter-mirror.js";
import { SendQueueProducer, startSendWorker } from "./send-queue.js";

export interface RedisForwardingOptions {
  url: string;
  /** Prefix of every key and channel: one per deployment sharing a Redis (and one per test). */
  prefix?: string;
  /** Intake and sync answers run here (`serve`). */
  api: boolean;
  /** A worker runs here: a candidate dispatcher and a consumer of send jobs (`worker`, and `serve` by default). */
  worker: boolean;
  /** How often the dispatcher re-reads the database for what is queued (the outbox). */
  reconcileMs?: number;
  /** The dispatcher lock's time to live; renewed every sixth of it, the fence closes at half of it. */
  lockTtlMs?: number;
  /** A send job picked up later than this after its reservation is not sent. */
  pickupMs?: number;
}

/** What a process running a worker holds: its connections, the send queue's two ends, the lock and the mirror. */
interface WorkerSide {
  connection: Redis;
  events: Redis;
  transport: SendQueueProducer;
  consumer: Worker;
  leadership: Leadership;
  mirror: LimiterMirror;
}

interface Term {
  dispatcher: Dispatcher;
  reconcile: NodeJS.Timeout;
}

/**
 * The BullMQ driver: any number of API and worker processes share one queue and one set of limits.
 *
 * - Intake commits a submission to the database (the source of truth), then publishes what admitting it takes
 *   (acceptedMessage). Nothing lives only in Redis: the dispatcher re-reads the database for whatever is queued and
 *   unknown to it (at takeover, every `reconcileMs`, after Redis comes back), so a lost notice, a flush or a Redis
 *   restart only delays a submission.
 * - One dispatcher at a time, elected by a Redis lock held by any worker process, runs the same fair scheduler and
 *   exact limiter as the embedded driver, mirroring the limiter's history into Redis so that a successor resumes
 *   from the real sends. It hands each allowed send to the BullMQ "send" queue.
 * - Worker processes run the one attempt implementation and return its verdict on the queue's events; the time the
 *   answer came closes the send's limiter slots (answer-time slots, see SendWindow).
 * - A settled submission's id is published, so a sync answer waiting in an API process wakes (and the API process
 *   also re-reads the row every 500 ms in case the notice is lost).
 */
export class BullmqForwarding implements ForwardingDriver {
  readonly driver = "bullmq";
  /** This process's forwarding instance: the dispatcher lock holds it while this process leads. */
  readonly instanceId = randomUUID();
  readonly #ctx: GatewayContext;
  readonly #store: SubmissionStore;
  readonly #keys: ForwardingKeys;
  readonly #prefix: string;
  readonly #waiters = new SettlementWaiters();
  readonly #producer: Redis;
  readonly #subscriber: Redis;
  readonly #attempt: SubmissionAttempt;
  readonly #lockTtlMs: number;
  readonly #pickupMs: number;
  readonly #sendBoundMs: number;
  #worker?: WorkerSide;
  #term: Term | undefined;
  /** Resolves once connected and subscribed, and for a worker taking jobs (tests and the worker command wait). */
  started: Promise<void> = Promise.resolve();
  #lastHistory: LimiterHistory | undefined;
  #closing = false;
  readonly #closed = new AbortController();
  /** The reconciler's reads and writes wait out an outage of the database (D-330). */
  readonly #sweeps: OutageRetry;
  #reconciling = false;
  #reconcileAgain = false;

  constructor(
    ctx: GatewayContext,
    private readonly options: ForwarderOptions & { redis: RedisForwardingOptions },
  ) {
    this.#ctx = ctx;
    this.#store = ctx.submissions;
    this.#prefix = options.redis.prefix ?? DEFAULT_PREFIX;
    this.#keys = forwardingKeys(this.#prefix);
    this.#lockTtlMs = options.redis.lockTtlMs ?? 6_000;
    this.#pickupMs = options.redis.pickupMs ?? 2_000;
    this.#producer = redisConnection(options.redis.url, "producer", ctx.log);
    this.#subscriber = redisConnection(options.redis.url, "worker", ctx.log);
    this.#attempt = new SubmissionAttempt(ctx, {
      ...options,
      pauses: redisPauseBoard(this.#producer, this.#keys.pauses),
      onSettled: (row) => {
        this.#waiters.settled(row);
        // After the hook (webhook deliveries enqueued): an API process woken by the notice finds them committed.
        options.onSettled?.(row);
        this.#publish(this.#keys.settled, row.id);
      },
    });
    // The latest a send can reach the upstream: picked up in time, then the call's timeout, and a second of slack.
    this.#sendBoundMs = this.#pickupMs + this.#attempt.timeoutMs + 1_000;
    this.#sweeps = ctx.outages.retry({ name: "forwarding reconciler", signal: this.#closed.signal });
    // Back from an outage of the database: the dispatcher reads it again for what is queued and due.
    ctx.outages.onRecovered((store) => {
      if (store === "database" && this.#term) this.#reconcileSoon();
    });
  }

  get backlog(): number {
    return this.#term?.dispatcher.backlog ?? 0;
  }

  /** Whether this process dispatches now. */
  get leading(): boolean {
    return this.#term !== undefined;
  }

  /** Returns at once: connecting to Redis may take a while (`started` resolves then); failures are logged. */
  async start(): Promise<void> {
    this.started = this.#start().catch((error: unknown) => {
      this.#ctx.log.error({ err: error }, "forwarding (bullmq) failed to start");
    });
  }

  async #start(): Promise<void> {
    const { redis } = this.options;
    this.#subscriber.on("message", (channel: string, message: string) => {
      this.#message(channel, message).catch((error: unknown) => {
        // A lost notice: the reconciler finds the submission in the database.
        if (!(error instanceof OutageRetryClosedError)) {
          this.#ctx.log.error({ err: error, channel }, "redis notice not handled");
        }
      });
    });
    // API processes hear of settled submissions (sync answers); workers of accepted ones and rotations (dispatch).
    const channels = [
      ...(redis.api ? [this.#keys.settled] : []),
      ...(redis.worker ? [this.#keys.accepted, this.#keys.rotated] : []),
    ];
    if (channels.length > 0) await this.#subscriber.subscribe(...channels);
    if (!redis.worker || this.#closing) return;
    const connection = redisConnection(redis.url, "worker", this.#ctx.log);
    const events = redisConnection(redis.url, "worker", this.#ctx.log);
    const name = this.#keys.sendQueue;
    const transport = new SendQueueProducer(
      {
        producer: this.#producer,
        events,
        prefix: this.#prefix,
        name,
        // A send waits out an outage of Redis instead of coming back at once to be dispatched again (D-330).
        outage: this.#ctx.outages.retry({ name: "forwarding send queue", store: "redis", signal: this.#closed.signal }),
      },
      this.#ctx.log,
    );
    const consumer = startSendWorker({
      connection,
      prefix: this.#prefix,
      name,
      concurrency: this.options.maxInFlight ?? 64,
      pickupMs: this.#pickupMs,
      attempt: this.#attempt,
      log: this.#ctx.log,
    });
    const windows = this.options.limits
      ? [this.options.limits.perCredential, this.options.limits.perCompany, this.options.limits.egress]
      : [{ windowMs: 60_000 }];
    const ttlMs = Math.max(...windows.map((w) => w.windowMs)) + this.#sendBoundMs;
    const mirror = new LimiterMirror(this.#producer, this.#keys, ttlMs, this.#ctx.log);
    const lock = new LeaderLock(this.#producer, this.#keys.leader, this.#lockTtlMs, this.instanceId);
    const leadership = new Leadership(
      lock,
      {
        name: "forwarding dispatcher",
        logFields: { instanceId: this.instanceId },
        holdsProcess: true,
        // A worker that cannot reach the database neither takes nor keeps the dispatcher (D-335).
        eligible: databaseEligibility(this.#ctx, "forwarding dispatcher election", this.#closed.signal),
        beforeStep: () => this.#present(worker),
        elected: () => this.#takeOver(worker),
        renewed: async (state) => {
          const term = this.#term;
          if (!term) return;
          if (state === "reclaimed") {
            // Redis lost its data (a flush, a restart without persistence): put our history back, re-read the database.
            await mirror.rewrite(term.dispatcher.history());
            this.#reconcileSoon();
          }
          term.dispatcher.wake();
        },
        stepDown: () => this.#stepDown(),
      },
      this.#ctx.log,
    );
    const worker: WorkerSide = { connection, events, transport, consumer, leadership, mirror };
    this.#worker = worker;
    await Promise.all([ready(this.#producer), transport.ready(), consumer.waitUntilReady()]);
    // Redis came back (perhaps empty): the dispatcher re-reads the database and the lock is renewed or reclaimed.
    this.#producer.on("ready", () => {
      if (this.#term) this.#reconcileSoon();
    });
    if (this.#closing) return;
    await leadership.start();
  }

  notify(row: SubmissionRow): void {
    if (row.status !== "queued") return;
    if (this.#term) this.#term.dispatcher.notify(row);
    else this.#publish(this.#keys.accepted, acceptedMessage(row));
  }

  async credentialRotated(credentialId: string): Promise<void> {
    await this.#store.resumeCredential(credentialId, Date.now());
    if (this.#term) await this.#reconcile();
    else this.#publish(this.#keys.rotated, credentialId);
  }

  async waitFor(submissionId: string, timeoutMs: number): Promise<SubmissionRow | undefined> {
    return this.#waiters.wait(submissionId, timeoutMs, () => this.#store.get(submissionId), 500);
  }

  /**
   * Graceful stop (SIGTERM): no new sends; the lock is released so another worker takes over at once; send jobs
   * already running here get until the deadline to finish (then they are left to the lease and the reconciler).
   */
  async close(deadlineMs = 5_000): Promise<void> {
    this.#closing = true;
    this.#closed.abort();
    // Redis may never have answered: do not wait for the start forever.
    await Promise.race([this.started, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    const worker = this.#worker;
    if (worker) {
      await this.#producer.zrem(this.#keys.workers, this.instanceId).catch(() => undefined);
      // A holder steps down and releases the lock: another worker takes over at once.
      await worker.leadership.close();
      let timer: NodeJS.Timeout | undefined;
      const finished = await Promise.race([
        worker.consumer.close().then(() => true),
        new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), deadlineMs);
        }),
      ]);
      clearTimeout(timer);
      if (!finished) await worker.consumer.close(true);
      // Attempts still waiting for the database give up: their claims' leases run out for the reconciler.
      this.#attempt.close();
      await worker.transport.close();
      worker.connection.disconnect();
      worker.events.disconnect();
    }
    this.#subscriber.disconnect();
    this.#producer.disconnect();
  }

  /**
   * Webhook deliveries this process enqueued but does not send (a worker process): the elected webhook dispatcher
   * (an API process, see startLedWebhooks) is told at once instead of finding them at its next re-read (5 s).
   */
  publishWebhookDue(subscriptionId: string, dueAt: number): void {
    this.#publish(this.#keys.webhooksDue, webhookDueMessage(subscriptionId, dueAt));
  }

  async #message(channel: string, message: string): Promise<void> {
    if (channel === this.#keys.settled) {
      if (this.#waiters.has(message)) {
        const row = await this.#store.get(message);
        if (row) this.#waiters.settled(row);
      }
      return;
    }
    if (!this.#term) return;
    if (channel === this.#keys.accepted) {
      const accepted = parseAccepted(message);
      if (typeof accepted === "string") await this.#term.dispatcher.notifyId(accepted);
      else this.#term.dispatcher.notify(accepted);
    } else if (channel === this.#keys.rotated) this.#reconcileSoon();
  }

  /**
   * Announces this worker, and lets the dispatcher send only when no other worker is alive: its event loop then
   * serves dispatch alone (sends, with their database writes, run elsewhere), which keeps its timing exact. A worker
   * waiting for the database takes no jobs meanwhile.
   */
  async #present(worker: WorkerSide): Promise<void> {
    const now = Date.now();
    // A worker that cannot reach the database takes no send jobs (their claims would wait for it while the workers
    // that can would have sent them), and is not counted among those that take them: a dispatcher left alone with it
    // sends itself (D-335).
    const away = this.#ctx.outages.databaseDown();
    const transaction = this.#producer.multi();
    if (away) transaction.zrem(this.#keys.workers, this.instanceId);
    else transaction.zadd(this.#keys.workers, now + worker.leadership.lock.ttlMs, this.instanceId);
    const [, , alive] = ((await transaction
      .zremrangebyscore(this.#keys.workers, "-inf", now)
      .zcard(this.#keys.workers)
      .exec()) ?? []) as [unknown, unknown, [Error | null, number] | undefined];
    const others = this.#term !== undefined && (alive?.[1] ?? 0) > 1;
    const hold = others || away;
    if (hold && !worker.consumer.isPaused()) void worker.consumer.pause(true);
    else if (!hold && worker.consumer.isPaused()) void worker.consumer.resume(); // its failure shows in the next step
  }

  async #takeOver(worker: WorkerSide): Promise<void> {
    const now = Date.now();
    const history = mergeHistories(await worker.mirror.load(now), this.#lastHistory, now);
    const dispatcher = new Dispatcher(this.#ctx, {
      transport: worker.transport,
      limits: this.options.limits,
      maxInFlight: this.options.maxInFlight,
      sendBoundMs: this.#sendBoundMs,
      history,
      observer: worker.mirror,
      // The fence: dispatch only while the lock was renewed within half its time to live.
      mayDispatch: () => this.#term === term && worker.leadership.fenceOpen(),
    });
    const term: Term = {
      dispatcher,
      reconcile: setInterval(() => this.#reconcileSoon(), this.options.redis.reconcileMs ?? 5_000),
    };
    this.#term = term;
    // Not awaited: it may wait for the database, and the term's renewals must go on meanwhile.
    this.#reconcileSoon();
  }

  #stepDown(): void {
    const term = this.#term;
    if (!term) return;
    this.#term = undefined;
    clearInterval(term.reconcile);
    // Kept in case this process leads again after an outage that emptied Redis.
    this.#lastHistory = term.dispatcher.history();
    void term.dispatcher.close(0);
    if (this.#worker?.consumer.isPaused() && !this.#closing) void this.#worker.consumer.resume(); // as in #present
  }

  /**
   * The outbox: what is committed and unfinished is (re-)admitted; leases of dead workers are released first — but
   * not those that ran out during a recent outage of the database, whose holders may be committing their answers now
   * (D-334).
   */
  async #reconcile(): Promise<void> {
    const term = this.#term;
    if (!term) return;
    const now = Date.now();
    const cutoff = this.#ctx.outages.leaseCutoff(now);
    await this.#sweeps.run(() => this.#store.releaseExpiredLeases(cutoff, now));
    if (this.#term !== term) return;
    await term.dispatcher.reconcile(now);
  }

  /** #reconcile from an event: one at a time (it may wait out an outage); a refusal is logged, the next one tries again. */
  #reconcileSoon(): void {
    if (this.#reconciling) {
      this.#reconcileAgain = true;
      return;
    }
    this.#reconciling = true;
    this.#reconcile()
      .catch((error: unknown) => {
        if (!(error instanceof OutageRetryClosedError))
          this.#ctx.log.error({ err: error }, "forwarding reconcile failed");
      })
      .finally(() => {
        this.#reconciling = false;
        if (this.#reconcileAgain) {
          this.#reconcileAgain = false;
          this.#reconcileSoon();
        }
      });
  }

  #publish(channel: string, message: string): void {
    this.#producer.publish(channel, message).catch((error: Error) => {
      // The dispatcher's reconciler finds it in the database anyway.
      this.#ctx.log.debug({ error: error.message, channel }, "redis notice not published");
    });
  }
}

/**
 * Redis's history and this process's own from an earlier term, as one: every time is an upper bound of a real
 * arrival, so all are kept, but a send both hold (the same time) counts once.
 */
function mergeHistories(a: LimiterHistory, b: LimiterHistory | undefined, now: number): LimiterHistory {
  if (!b) return a;
  const logs = new Map(a.logs);
  for (const [node, times] of b.logs) {
    const merged = [...(logs.get(node) ?? [])];
    const unmatched = new Map<number, number>();
    for (const t of merged) unmatched.set(t, (unmatched.get(t) ?? 0) + 1);
    for (const t of times) {
      const left = unmatched.get(t) ?? 0;
      if (left > 0) unmatched.set(t, left - 1);
      else merged.push(t);
    }
    logs.set(node, merged);
  }
  const pausedUntil = new Map(a.pausedUntil);
  for (const [id, until] of b.pausedUntil) pausedUntil.set(id, Math.max(until, pausedUntil.get(id) ?? 0));
  return { logs, pausedUntil, at: now };
}
