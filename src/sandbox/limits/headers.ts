import type { Decision } from "./limiter.js";

/** Whole seconds, rounded up: a client waiting this long is never early. */
const seconds = (ms: number) => Math.ceil(ms / 1000);

/**
 * §7: a 429 carries `retry-after` in seconds; network guards also send the standard RateLimit headers. We follow
 * draft-ietf-httpapi-ratelimit-headers-08: `RateLimit-Policy` lists each level as a quota policy (`q` quota, `w`
 * window in seconds) and `RateLimit` reports each level's remaining quota (`r`) and the seconds until its oldest
 * counted request leaves the window (`t`).
 */
export function rateLimitHeaders(decision: Decision): Record<string, string> {
  const policy = decision.levels.map((l) => `"${l.level}";q=${l.limit};w=${seconds(l.windowMs)}`).join(", ");
  const state = decision.levels.map((l) => `"${l.level}";r=${l.remaining};t=${seconds(l.resetMs)}`).join(", ");
  const headers: Record<string, string> = { "ratelimit-policy": policy, ratelimit: state };
  if (!decision.admitted) headers["retry-after"] = String(Math.max(1, seconds(decision.retryAfterMs)));
  return headers;
}
