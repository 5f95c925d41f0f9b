import { setTimeout as sleep } from "node:timers/promises";
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../http/errors.js";
import type { TrafficStats } from "../traffic-stats.js";
import type { FaultInjector } from "./fault-injector.js";

/** Destroys the TCP connection under the request, when there is one (node server); the client sees a reset. */
function resetConnection(env: unknown): boolean {
  if (!env || typeof env !== "object" || !("incoming" in env)) return false;
  const incoming = env.incoming as { socket?: { destroy(): void } } | undefined;
  if (!incoming?.socket) return false;
  incoming.socket.destroy();
  return true;
}

/**
 * Applies injected faults before anything else on the inbound surface: a faulted request never reaches the limiter
 * or the database, so injected failures do not consume the caller's quota (docs/decisions.md).
 */
export function faultMiddleware(deps: { faults: FaultInjector; stats: TrafficStats }): MiddlewareHandler {
  return async (c, next) => {
    const plan = deps.faults.plan(c.req.method, c.req.path);
    if (!plan) return next();
    if (plan.latencyMs > 0) {
      deps.stats.faults.delayed += 1;
      await sleep(plan.latencyMs);
    }
    if (plan.outcome === "reset" && resetConnection(c.env)) {
      deps.stats.faults.resets += 1;
      return c.body(null, 500);
    }
    if (plan.outcome === "error" || plan.outcome === "reset") {
      deps.stats.faults.errors += 1;
      return c.json({ error: "injected fault" }, plan.errorStatus);
    }
    if (plan.outcome === "rate_limited") {
      deps.stats.faults.rateLimited += 1;
      throw new ApiError("rate_limited", "rate limit exceeded (injected)", {
        headers: { "retry-after": String(plan.retryAfterSeconds) },
      });
    }
    await next();
    // The request was handled (a booking made, a lead merged); only its answer is late.
    if (plan.answerLatencyMs > 0) {
      deps.stats.faults.delayed += 1;
      await sleep(plan.answerLatencyMs);
    }
  };
}
