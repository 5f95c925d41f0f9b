import type { GatewayContext } from "../context.js";
import type { ForwardingDriver } from "./driver.js";
import { Forwarder, type ForwarderOptions } from "./forwarder.js";
import { BullmqForwarding, type RedisForwardingOptions } from "./redis/bullmq-forwarding.js";

export type { ForwardingDriver } from "./driver.js";
export type { ForwarderOptions } from "./forwarder.js";
export type { RedisForwardingOptions } from "./redis/bullmq-forwarding.js";

export type ForwardingOptions = ForwarderOptions & {
  /** Set (`REDIS_URL`): the BullMQ driver; unset: the embedded driver (one process). */
  redis?: RedisForwardingOptions;
};

/** The driver the options ask for: both behave the same, see docs/forwarding.md. */
export function createForwardingDriver(ctx: GatewayContext, options: ForwardingOptions): ForwardingDriver {
  const { redis, ...rest } = options;
  return redis ? new BullmqForwarding(ctx, { ...rest, redis }) : new Forwarder(ctx, rest);
}
