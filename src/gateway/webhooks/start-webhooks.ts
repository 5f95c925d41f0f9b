import type { GatewayContext } from "../context.js";
import { type DispatcherOptions, WebhookDispatcher } from "./delivery/dispatcher.js";

export type WebhookOptions = DispatcherOptions;

export interface RunningWebhooks {
  /** The dispatcher running in this process, if one does (with Redis, only the elected process runs one). */
  readonly dispatcher: WebhookDispatcher | undefined;
  /**
   * Stops the dispatcher; call before the database closes. Deliveries in flight get `graceMs` (default none) to be
   * answered and their outcomes recorded (D-383).
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Starts the delivery of the gateway's webhooks for a context: resumes pending deliveries left by an earlier process
 * and wakes on every enqueue. `createGateway` calls it once and closes it before the database.
 */
export async function startWebhooks(ctx: GatewayContext, options: WebhookOptions = {}): Promise<RunningWebhooks> {
  const dispatcher = new WebhookDispatcher(ctx, options);
  const stopped = ctx.running.webhooksStarted({
    notify: (subscriptionId, dueAt) => dispatcher.notify(subscriptionId, dueAt),
    policy: dispatcher.policy,
  });
  await dispatcher.start();
  return {
    dispatcher,
    async close(graceMs) {
      stopped();
      await dispatcher.close(graceMs === undefined ? {} : { graceMs });
    },
  };
}
