import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../http/errors.js";
import { clientIp } from "../client-ip.js";
import type { TrafficStats } from "../traffic-stats.js";
import { rateLimitHeaders } from "./headers.js";
import type { RateLimiter, Subject } from "./limiter.js";

/** §8: health and version endpoints, 3,000 per minute per source IP. */
export function healthGuard(deps: { limiter: RateLimiter; stats: TrafficStats }): MiddlewareHandler {
  return async (c, next) => {
    const subjects: Subject[] = [{ level: "health", id: clientIp(c) }];
    const decision = deps.limiter.admit(subjects);
    deps.stats.count(subjects, decision.admitted);
    const headers = rateLimitHeaders(decision);
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    if (!decision.admitted) throw new ApiError("rate_limited", "rate limit exceeded (health)", { headers });
    await next();
  };
}
