import type { OutboundPolicy } from "../../net/index.js";
import type { GatewayContext } from "../context.js";

/** What service verbs need of the running webhook machinery. */
export interface WebhookRuntime {
  /** A subscription has work due at `dueAt` (ms), or changed: wake the dispatcher. */
  notify(subscriptionId: string, dueAt: number): void;
  /** Where deliveries may go (SSRF policy): checked at subscription creation and at every connection. */
  policy: OutboundPolicy;
}

/**
 * The runtime started for a context (one per gateway) is `ctx.webhookRuntime`. Without one (a CLI, a test of a verb)
 * enqueued rows wait in the database for the next start, and URLs are checked with the mode's default policy.
 */
export function attachRuntime(ctx: GatewayContext, runtime: WebhookRuntime): void {
  ctx.webhookRuntime = runtime;
}

export function detachRuntime(ctx: GatewayContext, runtime: WebhookRuntime): void {
  if (ctx.webhookRuntime === runtime) ctx.webhookRuntime = undefined;
}

export function notifyDue(ctx: GatewayContext, subscriptionId: string, dueAt: number): void {
  ctx.webhookRuntime?.notify(subscriptionId, dueAt);
}

export function outboundPolicy(ctx: GatewayContext): OutboundPolicy {
  return ctx.webhookRuntime?.policy ?? { mode: ctx.settings.mode, loopbackPorts: ctx.settings.webhookLoopbackPorts };
}
