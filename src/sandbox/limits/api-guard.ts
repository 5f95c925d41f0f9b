import type { MiddlewareHandler } from "hono";
import { ApiError, unauthorized } from "../../http/errors.js";
import { keyPrefix } from "../../log.js";
import { authenticateKey } from "../auth/authenticate-key.js";
import { clientIp } from "../client-ip.js";
import type { SandboxEnv } from "../env.js";
import { rateLimitHeaders } from "../limits/headers.js";
import type { RateLimiter, Subject } from "../limits/limiter.js";
import type { TrafficStats } from "../traffic-stats.js";

/**
 * Front door of `/api/inbound/*`: authenticate the key (§5), then apply §8's limits to the source IP and — for an
 * authenticated key — to the key and its owner, in one atomic decision. A request without a valid key is counted by
 * the IP guard only, then answered 401. Kind and scope are checked per route (authorize.ts).
 */
export function inboundGuard(deps: { limiter: RateLimiter; stats: TrafficStats }): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    const apiKey = c.req.header("x-api-key");
    // §5.9: a key is only ever quoted by its first 14 characters.
    if (apiKey) c.set("keyPrefix", keyPrefix(apiKey));
    const caller = authenticateKey({ ctx: c.get("ctx"), input: { apiKey } });

    const ip: Subject = { level: "ip", id: clientIp(c) };
    const subjects: Subject[] = caller
      ? [{ level: "key", id: caller.keyId }, { level: "owner", id: caller.companyId }, ip]
      : [ip];
    const decision = deps.limiter.admit(subjects);
    deps.stats.count(subjects, decision.admitted);
    const headers = rateLimitHeaders(decision);
    for (const [name, value] of Object.entries(headers)) c.header(name, value);

    if (!decision.admitted) {
      throw new ApiError("rate_limited", `rate limit exceeded (${decision.refusedBy.join(", ")})`, {
        headers,
        details: { limits: decision.refusedBy },
      });
    }
    if (!caller) throw unauthorized(apiKey ? "invalid, unknown or revoked API key" : "missing x-api-key header");
    c.set("caller", caller);
    await next();
  };
}
