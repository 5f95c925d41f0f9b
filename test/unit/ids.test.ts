import { describe, expect, it } from "vitest";
import { newId } from "../../src/ids.js";

describe("time-ordered ids", () => {
  it("sort in creation order and keep their prefix", () => {
    const a = newId("sub", 1_700_000_000_000);
    const b = newId("sub", 1_700_000_000_001);
    expect(a < b).toBe(true);
    expect(a).toMatch(/^sub_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it("accept a clock that reports fractions of a millisecond", () => {
    expect(newId("whd", 1_763_790_000_123.456)).toMatch(/^whd_[0-9a-hjkmnp-tv-z]{26}$/);
  });
});
