import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Sealer } from "../../../src/gateway/security/sealer.js";

/** §5.9: secrets the gateway must use again are sealed at rest (AES-256-GCM), bound to the row that holds them. */
describe("the sealer", () => {
  const sealer = new Sealer(randomBytes(32));

  it("opens what it sealed for the same record only", () => {
    const sealed = sealer.seal("whsec_secret", "whs_1");
    expect(sealer.open(sealed, "whs_1")).toBe("whsec_secret");
    expect(() => sealer.open(sealed, "whs_2")).toThrow();
  });

  it("keeps what openKept opened, and still refuses another record or a changed text", () => {
    const sealed = sealer.seal("whsec_secret", "whs_1");
    expect(sealer.openKept(sealed, "whs_1")).toBe("whsec_secret");
    expect(sealer.openKept(sealed, "whs_1")).toBe("whsec_secret");
    // The cache is keyed by record and text: a copy onto another row, or a tampered text, is opened (and refused) anew.
    expect(() => sealer.openKept(sealed, "whs_2")).toThrow();
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith("A") ? "B" : "A"}A`;
    expect(() => sealer.openKept(tampered, "whs_1")).toThrow();
  });

  it("seals the same value differently each time (so a sealed text keys a cache safely)", () => {
    expect(sealer.seal("v", "r")).not.toBe(sealer.seal("v", "r"));
  });
});
