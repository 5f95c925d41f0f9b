import { describe, expect, it } from "vitest";
import { atLeastChars, atMostChars } from "../../src/contract/chars.js";

/** The reference: count code points the slow way. */
const count = (s: string) => [...s].length;

describe("character limits count code points (§2.7, §2.8), judged on length where that settles it", () => {
  const samples = [
    "",
    "a",
    "abc",
    "😀",
    "😀😀😀",
    "a😀b",
    "\ud83d", // a lone surrogate counts as one character, as [...s] counts it
    "x".repeat(119),
    "x".repeat(120),
    "x".repeat(121),
    "😀".repeat(60),
    "😀".repeat(61),
    `${"😀".repeat(59)}ab`,
    `${"😀".repeat(60)}a`,
  ];
  for (const s of samples) {
    it(`agrees with counting for ${JSON.stringify(s.slice(0, 8))}… (${s.length} UTF-16 units)`, () => {
      for (const limit of [0, 1, 2, 3, 7, 8, 60, 61, 119, 120, 121]) {
        expect(atLeastChars(s, limit), `at least ${limit}`).toBe(count(s) >= limit);
        expect(atMostChars(s, limit), `at most ${limit}`).toBe(count(s) <= limit);
      }
    });
  }
});
