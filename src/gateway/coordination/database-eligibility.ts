import type { GatewayContext } from "../context.js";

/** How long a leader's look at the database may take: a step of its term (a sixth of the lock's life) must go on. */
const PING_MS = 1_000;

/**
 * A role's `eligible` (Leadership): whether this process reaches the database now — a ping answered within a second
 * (D-335). Its failures are an outage of the database for this process's registry (logged once, readiness, the lease
 * rule), and its success after them the recovery, which wakes the loops' sweeps. Stops reporting once `signal` aborts.
 */
export function databaseEligibility(ctx: GatewayContext, name: string, signal: AbortSignal): () => Promise<boolean> {
  const watch = ctx.outages.watch({ name, signal });
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        ctx.ping(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(Object.assign(new Error("the database did not answer in time"), { code: "ETIMEDOUT" })),
            PING_MS,
          );
        }),
      ]);
      watch.succeeded();
      return true;
    } catch (error) {
      // Not an outage (a bug of the ping): no reason to move the role.
      return !watch.failed(error);
    } finally {
      clearTimeout(timer);
    }
  };
}
