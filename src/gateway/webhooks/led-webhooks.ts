import type { GatewayContext } from "../context.js";
import {
  coordinationKeys,
  databaseEligibility,
  LeaderLock,
  Leadership,
  parseWebhookDue,
  redisConnection,
  webhookDueMessage,
} from "../coordination/index.js";
import { OutageRetryClosedError } from "../outage/index.js";
import { WebhookDispatcher, webhookPolicy } from "./delivery/dispatcher.js";
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
 *
 * The fence (D-335): the dispatcher launches a delivery only while the lock was renewed within half its time to live,
 * so a leader cut off from Redis stops sending before another can start; and a leader that cannot reach the database
 * steps down, so that one that can takes over.
 */
export function startLedWebhooks(
  ctx: GatewayContext,
  options: WebhookOptions,
  leadership: WebhookLeadership,
): RunningWebhooks {
  const keys = coordinationKeys(leadership.prefix);
  const connection = redisConnection(leadership.url, "producer", ctx.log);
  const subscriber = redisConnection(leadership.url, "worker", ctx.log);
  const lock = new LeaderLock(connection, keys.webhooksLeader, leadership.lockTtlMs ?? 6_000);
  const closed = new AbortController();
  let dispatcher: WebhookDispatcher | undefined;
  /** What the process's close gives the leader's deliveries in flight (D-383). */
  let closingGraceMs = 0;

  const publish = (subscriptionId: string, dueAt: number) =>
    connection.publish(keys.webhooksDue, webhookDueMessage(subscriptionId, dueAt)).catch((error: Error) => {
      ctx.log.debug({ error: error.message }, "webhook notice not published (the leader's re-read finds it)");
    });
  const stopped = ctx.running.webhooksStarted({
    notify: (subscriptionId, dueAt) => {
      if (dispatcher) dispatcher.notify(subscriptionId, dueAt);
      else void publish(subscriptionId, dueAt);
    },
    policy: webhookPolicy(ctx, options),
  });

  subscriber.on("message", (_channel: string, message: string) => {
    const due = parseWebhookDue(message);
    if (dispatcher && due) dispatcher.notify(due.subscriptionId, due.dueAt);
  });
  subscriber.subscribe(keys.webhooksDue).catch((error: Error) => {
    ctx.log.warn({ error: error.message }, "webhook notices: not subscribed (the 5 s re-read still finds deliveries)");
  });

  const election = new Leadership(
    lock,
    {
      name: "webhook dispatcher",
      eligible: databaseEligibility(ctx, "webhook dispatcher election", closed.signal),
      elected: async () => {
        // Elected during or just after an outage of the database: the last leader's answered deliveries commit first
        // (D-334).
        const afterOutage = ctx.outages.settledFrom() > Date.now();
        const elected = new WebhookDispatcher(ctx, {
          ...options,
          mayDispatch: () => election.fenceOpen(),
          ...(afterOutage ? { sendFrom: () => ctx.outages.settledFrom() } : {}),
        });
        dispatcher = elected;
        // Not awaited: its first reads may wait for the database, and the term's renewals must go on meanwhile.
        elected.start().catch((error: unknown) => {
          if (!(error instanceof OutageRetryClosedError))
            ctx.log.error({ err: error }, "webhook dispatcher did not start");
        });
      },
      stepDown: async (reason) => {
        const leaving = dispatcher;
        dispatcher = undefined;
        if (reason === "closing") return leaving?.close({ graceMs: closingGraceMs });
        // The process lives on: the outcomes it has answered keep committing once the database is back (D-334).
        void leaving?.close({ keepOutcomes: true });
      },
    },
    ctx.log,
  );
  void election.start();

  return {
    get dispatcher() {
      return dispatcher;
    },
    async close(graceMs) {
      closingGraceMs = graceMs ?? 0;
      stopped();
      closed.abort();
      await election.close();
      subscriber.disconnect();
      connection.disconnect();
    },
  };
}
