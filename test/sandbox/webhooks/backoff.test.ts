import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_DELAYS_MS } from "../../../src/sandbox/index.js";
import { maxAttempts, retryDelayMs } from "../../../src/sandbox/webhooks/dispatcher/backoff.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe("§6.4.2–3 retry schedule (docs/decisions.md)", () => {
  it("defaults to eight attempts: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h", () => {
    expect(DEFAULT_RETRY_DELAYS_MS).toEqual([5000, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);
    expect(maxAttempts({ retryDelaysMs: [...DEFAULT_RETRY_DELAYS_MS] })).toBe(8);
  });

  it("spreads each wait by at most ± jitter and gives no wait after the last attempt", () => {
    const config = { retryDelaysMs: [1000, 4000], jitter: 0.1 };
    expect(retryDelayMs(config, 1, () => 0)).toBe(900);
    expect(retryDelayMs(config, 1, () => 0.5)).toBe(1000);
    expect(retryDelayMs(config, 2, () => 0.999_999)).toBe(4400);
    expect(retryDelayMs(config, 3, () => 0.5)).toBeUndefined();
    expect(retryDelayMs({ retryDelaysMs: [1000], jitter: 0 }, 1, () => 0)).toBe(1000);
  });
});
