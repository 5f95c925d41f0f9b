import type { GatewayContext } from "../context.js";
import { redisConnection } from "../forwarding/redis/connections.js";
import { forwardingKeys, parseWebhookDue, webhookDueMessage } from "../forwarding/redis/keys.js";
import { LeaderLock } from "../forwarding/redis/leader-lock.js";
import { WebhookDispatcher, webhookPolicy } from "./delivery/dispatcher.js";
import { attachRuntime, detachRuntime, type WebhookRuntime } from "./registry.js";
import type { RunningWebhooks, WebhookOptions } from "./start-webhooks.js";

export interface WebhookLeadership {
  url: string;
  prefix: string;
  /** The lock's time to live; renewed every sixth of it, and sending stops when a renewal is half of it late. */
  lockTtlMs?: number;
}

/**
 * Webhook delivery when several API processes share one database (BullMQ driver): exactly one of them runs the
 * dispatcher, elected by a Redis lock, since two would both send every pending delivery. The others, and the worker
 * processes, tell it about deliveries they enqueued on a Redis channel; its 5 s re-read of the backlog catches a lost
 * message. A leader that dies is replaced once its lock expires; deliveries it had in flight are still pending and
 * are sent again by the next (at least once, §6.6: the stable event id lets a receiver recognise a repeat).
 */
export function startLedWebhooks(
  ctx: GatewayContext,
  options: WebhookOptions,
  leadership: WebhookLeadership,
): RunningWebhooks {
  const keys = forwardingKeys(leadership.prefix);
  const connection = redisConnection(leadership.url, "producer", ctx.log);
  const subscriber = redisConnection(leadership.url, "worker", ctx.log);
  const lock = new LeaderLock(connection, `${leadership.prefix}:webhooks:leader`, leadership.lockTtlMs ?? 6_000);
  let dispatcher: WebhookDispatcher | undefined;
  let renewedAt = 0;
  let ticking = false;
  let closed = false;

  const publish = (subscriptionId: string, dueAt: number) =>
    connection.publish(keys.webhooksDue, webhookDueMessage(subscriptionId, dueAt)).catch((error: Error) => {
      ctx.log.debug({ error: error.message }, "webhook notice not published (the leader's re-read finds it)");
    });
  const runtime: WebhookRuntime = {
    notify: (subscriptionId, dueAt) => {
      if (dispatcher) dispatcher.notify(subscriptionId, dueAt);
      else void publish(subscriptionId, dueAt);
    },
    policy: webhookPolicy(ctx, options),
  };
  attachRuntime(ctx, runtime);

  subscriber.on("message", (_channel: string, message: string) => {
    const due = parseWebhookDue(message);
    if (dispatcher && due) dispatcher.notify(due.subscriptionId, due.dueAt);
  });
  subscriber.subscribe(keys.webhooksDue).catch((error: Error) => {
    ctx.log.warn({ error: error.message }, "webhook notices: not subscribed (the 5 s re-read still finds deliveries)");
  });

  const stepDown = async (reason: string) => {
    const leaving = dispatcher;
    dispatcher = undefined;
    if (!leaving) return;
    if (!closed) ctx.log.warn({ reason }, "webhook dispatcher: stepped down");
    await leaving.close();
  };
  const tick = async () => {
    if (ticking || closed) return;
    ticking = true;
    const sentAt = Date.now();
    try {
      if (dispatcher) {
        const state = await lock.renew();
        if (state === "lost") await stepDown("lock taken by another process");
        else renewedAt = sentAt;
      } else if (await lock.acquire()) {
        renewedAt = sentAt;
        if (closed) return;
        dispatcher = new WebhookDispatcher(ctx, options);
        dispatcher.start();
        ctx.log.info({}, "webhook dispatcher: took over");
      }
    } catch (error) {
      ctx.log.debug({ error: (error as Error).message }, "webhook lock: redis unreachable");
      // Stop sending before the lock can expire and another process start.
      if (dispatcher && Date.now() - renewedAt > lock.ttlMs / 2) await stepDown("redis unreachable");
    } finally {
      ticking = false;
    }
  };
  const timer = setInterval(() => void tick(), Math.max(50, Math.floor(lock.ttlMs / 6)));
  timer.unref();
  void tick();

  return {
    get dispatcher() {
      return dispatcher;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      detachRuntime(ctx, runtime);
      const led = dispatcher !== undefined;
      await stepDown("closing");
      if (led) await lock.release().catch(() => undefined);
      subscriber.disconnect();
      connection.disconnect();
    },
  };
}
