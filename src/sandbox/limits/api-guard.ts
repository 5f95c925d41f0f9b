import type { MiddlewareHandler } from "hono";
import { ApiError, unauthorized } from "../../http/errors.js";
import { keyPrefix } from "../../log.js";
import { authenticateKey } from "../auth/authenticate-key.js";
import { clientIp } from "../client-ip.js";
import type { SandboxEnv } from "../env.js";
import type { TrafficStats } from "../traffic-stats.js";
import { rateLimitHeaders } from "./headers.js";
import type { RateLimiter, Subject } from "./limiter.js";

/**
 * Front door of an API surface: authenticate the key (§5), then apply §8's limits — the key and its owner for an
 * authenticated key, and, on the Inbound API, the source IP (its network guard, which counts requests without a valid
 * key too) — in one atomic decision. A request without a valid key is then answered 401. Kind and scope are checked
 * per route (authorize.ts).
 */
export function apiGuard(
  deps: { limiter: RateLimiter; stats: TrafficStats },
  options: { networkGuard: boolean },
): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    const apiKey = c.req.header("x-api-key");
    // §5.9: a key is only ever quoted by its first 14 characters.
    if (apiKey) c.set("keyPrefix", keyPrefix(apiKey));
    const caller = authenticateKey({ ctx: c.get("ctx"), input: { apiKey } });

    const subjects: Subject[] = caller
      ? [
          { level: "key", id: caller.keyId },
          { level: "owner", id: caller.companyId },
        ]
      : [];
    if (options.networkGuard) subjects.push({ level: "ip", id: clientIp(c) });
    if (subjects.length > 0) {
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
    }
    if (!caller) throw unauthorized(apiKey ? "invalid, unknown or revoked API key" : "missing x-api-key header");
    c.set("caller", caller);
    await next();
  };
}
