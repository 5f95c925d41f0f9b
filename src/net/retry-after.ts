/**
 * The longest a peer's Retry-After is honoured: an upstream or a webhook endpoint cannot park a send for weeks
 * (docs/decisions.md: a webhook endpoint's Retry-After is honoured up to 24 h).
 */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * RFC 9110 Retry-After, the one parser for every answer the gateway reads it from (the upstream's 429, a webhook
 * endpoint's refusal): delay-seconds (a fraction is accepted) or an HTTP-date, as milliseconds from `nowMs`, at most
 * `capMs`; undefined when absent or unreadable — each caller says what that means to it.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number,
  capMs: number = MAX_RETRY_AFTER_MS,
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(capMs, Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.min(capMs, Math.max(0, date - nowMs));
}
