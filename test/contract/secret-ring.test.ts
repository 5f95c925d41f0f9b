import { describe, expect, it } from "vitest";
import { DEFAULT_OVERLAP_SECONDS, SecretRing } from "../../src/contract/secret-ring.js";

const T = 1_767_225_600;

describe("§6.3.3 secrets held by version", () => {
  it("finds a secret by its version and nothing for an unknown version", () => {
    const ring = SecretRing.of([
      { version: 1, secret: "one" },
      { version: 2, secret: "two" },
    ]);
    expect(ring.secretFor(1, T)).toBe("one");
    expect(ring.secretFor(2, T)).toBe("two");
    expect(ring.secretFor(3, T)).toBeUndefined();
  });

  it("stops returning a version after its notAfter", () => {
    const ring = SecretRing.of([{ version: 1, secret: "one", notAfter: T }]);
    expect(ring.secretFor(1, T)).toBe("one");
    expect(ring.secretFor(1, T + 1)).toBeUndefined();
  });

  it.each([
    ["version 0", [{ version: 0, secret: "x" }]],
    ["a fractional version", [{ version: 1.5, secret: "x" }]],
    ["an empty secret", [{ version: 1, secret: "" }]],
    [
      "a version held twice",
      [
        { version: 1, secret: "a" },
        { version: 1, secret: "b" },
      ],
    ],
  ])("refuses %s", (_name, entries) => {
    expect(() => SecretRing.of(entries)).toThrow(RangeError);
  });

  it("never shows a secret when serialised for a log", () => {
    const ring = SecretRing.first("very-secret");
    expect(JSON.stringify(ring)).not.toContain("very-secret");
    expect(JSON.stringify(ring)).toBe('{"current":1,"versions":[1]}');
  });
});

describe("§6.5 two-phase rotation", () => {
  it("rotate creates a pending secret with the next version; signing stays on the current one (§6.5.1)", () => {
    const ring = SecretRing.first("one").rotate("two");
    expect(ring.pendingVersion).toBe(2);
    expect(ring.signingSecret()).toEqual({ version: 1, secret: "one" });
    expect(ring.secretFor(2, T)).toBe("two");
  });

  it("a second rotation before activation discards the unused pending secret and never reuses its number", () => {
    const ring = SecretRing.first("one").rotate("two").rotate("three");
    expect(ring.versions).toEqual([1, 3]);
    expect(ring.pendingVersion).toBe(3);
  });

  it("activate signs with the new version and keeps the previous one for the overlap, then prune drops it (§6.5.3)", () => {
    const active = SecretRing.first("one").rotate("two").activate(2, T, 600);
    expect(active.signingSecret()).toEqual({ version: 2, secret: "two" });
    expect(active.pendingVersion).toBeUndefined();
    expect(active.secretFor(1, T + 600)).toBe("one");
    expect(active.secretFor(1, T + 601)).toBeUndefined();
    expect(active.prune(T + 600).versions).toEqual([1, 2]);
    expect(active.prune(T + 601).versions).toEqual([2]);
  });

  it("overlaps for an hour unless told", () => {
    const active = SecretRing.first("one").rotate("two").activate(2, T);
    expect(DEFAULT_OVERLAP_SECONDS).toBe(3600);
    expect(active.toState().entries.find((e) => e.version === 1)?.notAfter).toBe(T + 3600);
  });

  it("the receiver side loads the pending secret, then activation starts the overlap of the older ones (§6.5.2)", () => {
    const receiver = SecretRing.of([{ version: 1, secret: "one" }]).withSecret({ version: 2, secret: "two" });
    expect(receiver.secretFor(1, T)).toBe("one");
    expect(receiver.secretFor(2, T)).toBe("two");
    const activated = receiver.activate(2, T, 300);
    expect(activated.secretFor(1, T + 300)).toBe("one");
    expect(activated.prune(T + 301).versions).toEqual([2]);
  });

  it("refuses to activate a version it does not hold or one that is not above the current one", () => {
    const ring = SecretRing.first("one").rotate("two").activate(2, T);
    expect(() => ring.activate(3, T)).toThrow(RangeError);
    expect(() => ring.activate(1, T)).toThrow(RangeError);
  });

  it("never prunes the current version and survives a storage round trip", () => {
    const ring = SecretRing.first("one")
      .rotate("two")
      .activate(2, T, 10)
      .prune(T + 1_000_000);
    expect(ring.versions).toEqual([2]);
    expect(SecretRing.fromState(ring.toState()).signingSecret()).toEqual({ version: 2, secret: "two" });
  });
});
