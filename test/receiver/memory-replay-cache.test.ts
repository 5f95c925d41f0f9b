import { describe, expect, it } from "vitest";
import { MemoryReplayCache } from "../../src/receiver/index.js";

const T = 1_767_225_600;

describe("§6.6 in-memory replay cache", () => {
  it("remembers a delivery id until keepUntil, then forgets it", () => {
    let now = T;
    const cache = new MemoryReplayCache({ now: () => now * 1000 });
    expect(cache.rememberDelivery("dlv_1", T + 301)).toBe(true);
    expect(cache.rememberDelivery("dlv_1", T + 301)).toBe(false);
    now = T + 301;
    expect(cache.rememberDelivery("dlv_1", T + 602)).toBe(false);
    now = T + 302;
    expect(cache.rememberDelivery("dlv_1", T + 603)).toBe(true);
  });

  it("remembers processed events for a week unless told", () => {
    let now = T;
    const cache = new MemoryReplayCache({ now: () => now * 1000 });
    cache.markEventProcessed("evt_1");
    now = T + 7 * 24 * 3600;
    expect(cache.isEventProcessed("evt_1")).toBe(true);
    now += 1;
    expect(cache.isEventProcessed("evt_1")).toBe(false);
  });

  it("stays within its bound by evicting the oldest entries", () => {
    const cache = new MemoryReplayCache({ maxDeliveries: 2, maxEvents: 2, now: () => T * 1000 });
    for (const id of ["a", "b", "c"]) cache.rememberDelivery(id, T + 10);
    expect(cache.rememberDelivery("a", T + 10)).toBe(true);
    expect(cache.rememberDelivery("c", T + 10)).toBe(false);
    for (const id of ["e1", "e2", "e3"]) cache.markEventProcessed(id);
    expect(cache.isEventProcessed("e1")).toBe(false);
    expect(cache.isEventProcessed("e3")).toBe(true);
  });

  it("refuses a bound that is not a positive integer", () => {
    expect(() => new MemoryReplayCache({ maxDeliveries: 0 })).toThrow(RangeError);
  });
});
