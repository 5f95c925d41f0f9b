import { describe, expect, it } from "vitest";
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from "../../src/net/retry-after.js";

const NOW = Date.parse("2026-01-01T00:00:00Z");

describe("§7 retry-after: one parser for the upstream's 429 and a webhook endpoint's refusal", () => {
  it("reads delay-seconds, a fraction too, as milliseconds", () => {
    expect(parseRetryAfter("5", NOW)).toBe(5_000);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfter("1.5", NOW)).toBe(1_500);
  });

  it("reads an HTTP-date as the time until it, never negative", () => {
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:01:00 GMT", NOW)).toBe(60_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:00:00 GMT", NOW)).toBe(0);
  });

  it("caps what a peer may ask: 24 h by default, or the caller's cap", () => {
    expect(parseRetryAfter(String(30 * 86_400), NOW)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter("Fri, 01 Jan 2027 00:00:00 GMT", NOW)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter("120", NOW, 60_000)).toBe(60_000);
  });

  it("is undefined when absent or unreadable (each caller says what that means)", () => {
    expect(parseRetryAfter(null, NOW)).toBeUndefined();
    expect(parseRetryAfter("", NOW)).toBeUndefined();
    expect(parseRetryAfter("soon", NOW)).toBeUndefined();
    expect(parseRetryAfter("0x10", NOW)).toBeUndefined();
  });
});
