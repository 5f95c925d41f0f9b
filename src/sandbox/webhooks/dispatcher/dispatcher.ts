import { and, asc, eq, lte, sql } from "drizzle-orm";
import type { Logger } from "../../../log.js";
import { createGuardedFetch, type GuardedFetch } from "../../../net/index.js";
import type { SandboxCtx } from "../../context.js";
import { type WebhookDeliveryRow, webhookDeliveries } from "../../db/schema/index.js";
import type { WebhookConfig } from "../config.js";
import { sendAttempt } from "./send-attempt.js";

/**
 * The sandbox's in-process webhook sender (§6.4). Deliveries are durable rows; this loop sends those that are due,
 * at most `concurrency` at once and at most `perSubscriptionConcurrency` to one subscription, taking subscriptions
 * in turn — so a dead or slow endpoint holds only its own few slots and never delays the others. Started and stopped
 * with the sandbox.
 */
export class WebhookDispatcher {
  readonly #inFlight = new Set<string>();
  readonly #perSubscription = new Map<string, number>();
  readonly #fetcher: GuardedFetch;
  #timer: NodeJS.Timeout | undefined;
  #woken = false;
  #stopped = true;
  #turn = 0;

  constructor(
    private readonly ctx: SandboxCtx,
    private readonly config: WebhookConfig,
    private readonly log: Logger,
  ) {
    this.#fetcher = createGuardedFetch({
      policy: { mode: "sandbox", allowList: config.allowList },
      timeoutMs: config.timeoutMs,
    });
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.wake();
  }

  /** Look for due deliveries now (after the current synchronous work, e.g. a committed transaction). */
  wake(): void {
    if (this.#stopped || this.#woken) return;
    this.#woken = true;
    setImmediate(() => {
      this.#woken = false;
      this.#tick();
    });
  }

  /** Stops sending and drops open connections; attempts still out are abandoned and stay pending in the database. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#fetcher.close();
  }

  get inFlight(): number {
    return this.#inFlight.size;
  }

  #tick(): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#tick(), this.config.pollIntervalMs);
    this.#timer.unref();
    try {
      for (const delivery of this.#claim()) this.#send(delivery);
    } catch (error) {
      this.log.error({ err: error }, "webhook dispatcher failed to read due deliveries");
    }
  }

  /** Due deliveries, subscriptions in turn, within the global and per-subscription limits. */
  #claim(): WebhookDeliveryRow[] {
    let free = this.config.concurrency - this.#inFlight.size;
    if (free <= 0) return [];
    const now = this.ctx.clock.now();
    const due = and(eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, now));
    const subscriptions = this.ctx.db
      .select({ id: webhookDeliveries.subscriptionId })
      .from(webhookDeliveries)
      .where(due)
      .groupBy(webhookDeliveries.subscriptionId)
      .orderBy(sql`min(${webhookDeliveries.nextAttemptAt})`)
      .all()
      .map((row) => row.id);
    const start = subscriptions.length === 0 ? 0 : this.#turn++ % subscriptions.length;
    const claimed: WebhookDeliveryRow[] = [];
    for (let i = 0; i < subscriptions.length && free > 0; i++) {
      const subscriptionId = subscriptions[(start + i) % subscriptions.length] ?? "";
      const slots = Math.min(
        free,
        this.config.perSubscriptionConcurrency - (this.#perSubscription.get(subscriptionId) ?? 0),
      );
      if (slots <= 0) continue;
      const rows = this.ctx.db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.subscriptionId, subscriptionId), due))
        .orderBy(asc(webhookDeliveries.id))
        .limit(slots + (this.#perSubscription.get(subscriptionId) ?? 0))
        .all()
        .filter((row) => !this.#inFlight.has(row.id))
        .slice(0, slots);
      for (const row of rows) {
        this.#inFlight.add(row.id);
        this.#perSubscription.set(subscriptionId, (this.#perSubscription.get(subscriptionId) ?? 0) + 1);
        claimed.push(row);
        free--;
      }
    }
    return claimed;
  }

  #send(delivery: WebhookDeliveryRow): void {
    const deps = { ctx: this.ctx, config: this.config, fetcher: this.#fetcher, isStopped: () => this.#stopped };
    sendAttempt(deps, delivery)
      .then((outcome) => {
        if (outcome) this.log.info({ ...outcome, event: delivery.event }, "webhook attempt");
      })
      .catch((error: unknown) => {
        if (!this.#stopped) this.log.error({ err: error, deliveryId: delivery.id }, "webhook attempt failed");
      })
      .finally(() => {
        this.#inFlight.delete(delivery.id);
        const left = (this.#perSubscription.get(delivery.subscriptionId) ?? 1) - 1;
        if (left > 0) this.#perSubscription.set(delivery.subscriptionId, left);
        else this.#perSubscription.delete(delivery.subscriptionId);
        this.wake();
      });
  }
}
