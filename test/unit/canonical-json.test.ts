import { describe, expect, it } from "vitest";
import { canonicalDigest, canonicalJson } from "../../src/canonical-json.js";

/** The definition, written plainly: what the fast version must equal. */
function reference(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(",")}}`;
}

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ["a", "b", "B", "é", "10", "9", "", "ünïcode", "\u{1F600}", 'a"q', "z", "line\nbreak"];

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 5 : 7));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return Math.round((next() - 0.5) * 1e6) / 100;
    case 3:
      return KEYS[Math.floor(next() * KEYS.length)];
    case 4:
      return undefined;
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 5); i > 0; i--)
        out[KEYS[Math.floor(next() * KEYS.length)] ?? "k"] = value(next, depth + 1);
      return out;
    }
  }
}

describe("canonicalJson (idempotency: same payload compared as canonical JSON, §8)", () => {
  it("equals the plain definition on 2,000 random values (unicode, numeric-looking keys, undefined, nesting)", () => {
    const next = random(42);
    for (let i = 0; i < 2_000; i++) {
      const v = value(next, 0);
      expect(canonicalJson(v)).toBe(reference(v));
    }
  });

  it("ignores key order at every depth and leaves undefined properties out", () => {
    const a = { b: [{ y: 1, x: 2 }], a: { d: null, c: "c" }, gone: undefined };
    const b = { a: { c: "c", d: null }, b: [{ x: 2, y: 1 }] };
    expect(canonicalJson(a)).toBe('{"a":{"c":"c","d":null},"b":[{"x":2,"y":1}]}');
    expect(canonicalDigest(a)).toBe(canonicalDigest(b));
    expect(canonicalDigest([1, 2])).not.toBe(canonicalDigest([2, 1]));
  });

  it("walks any nesting without recursion: 50,000 arrays and objects inside one another", () => {
    let deep: unknown = "core";
    for (let i = 0; i < 50_000; i++) deep = i % 2 === 0 ? [deep] : { k: deep, a: 1 };
    const text = canonicalJson(deep);
    expect(text.length).toBe(JSON.stringify("core").length + 25_000 * 2 + 25_000 * '{"a":1,"k":}'.length);
    expect(text.startsWith('{"a":1,"k":[{"a":1,"k":[')).toBe(true);
    expect(canonicalDigest(deep)).toMatch(/^[0-9a-f]{64}$/);
  });
});
