import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  computeSignature,
  newDeliveryId,
  type SignWebhookInput,
  signWebhook,
  WEBHOOK_HEADERS,
} from "../../src/contract/signing.js";
import { referenceHmacSha256 } from "./reference-hmac.js";

interface Vector {
  name: string;
  secret: string;
  timestamp: number;
  bodyHex: string;
  bodyText?: string;
  signature: string;
}

const vectors: Vector[] = JSON.parse(
  readFileSync(new URL("../fixtures/signing-vectors.json", import.meta.url), "utf8"),
).vectors;
const utf8 = (text: string) => new TextEncoder().encode(text);
const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, "hex"));

function referenceSignature(secret: string, timestamp: number, body: Uint8Array): string {
  const message = Buffer.concat([utf8(`${timestamp}.`), body]);
  return `v1=${referenceHmacSha256(utf8(secret), message).toString("hex")}`;
}

describe("reference HMAC (RFC 4231 test cases)", () => {
  it.each([
    ["case 1", "0b".repeat(20), "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"],
    [
      "case 2",
      Buffer.from("Jefe").toString("hex"),
      "what do ya want for nothing?",
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    ],
    [
      "case 6 (key longer than a block)",
      "aa".repeat(131),
      "Test Using Larger Than Block-Size Key - Hash Key First",
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
    ],
  ])("computes the published digest for %s", (_name, keyHex, data, digest) => {
    expect(referenceHmacSha256(bytes(keyHex), utf8(data)).toString("hex")).toBe(digest);
  });
});

describe("§6.3.1 signature: v1= lowercase hex HMAC-SHA256 of '<timestamp>.<raw body bytes>'", () => {
  it("has vectors covering non-ASCII, whitespace-significant and non-UTF-8 bodies", () => {
    expect(vectors.length).toBeGreaterThanOrEqual(8);
    for (const v of vectors)
      if (v.bodyText !== undefined) expect(Buffer.from(utf8(v.bodyText)).toString("hex")).toBe(v.bodyHex);
    expect(vectors.some((v) => v.bodyText === undefined)).toBe(true);
  });

  it.each(vectors.map((v) => [v.name, v] as const))(
    "vector '%s' matches the module and the RFC 2104 reference",
    (_name, v) => {
      const body = bytes(v.bodyHex);
      expect(referenceSignature(v.secret, v.timestamp, body)).toBe(v.signature);
      expect(computeSignature(v.secret, v.timestamp, body)).toBe(v.signature);
    },
  );

  it("signs a string body as its UTF-8 bytes", () => {
    const v = vectors.find((x) => x.name.startsWith("non-ASCII"));
    if (!v?.bodyText) throw new Error("vector missing");
    expect(computeSignature(v.secret, v.timestamp, v.bodyText)).toBe(v.signature);
  });

  it("gives different signatures to the same JSON value serialised differently (the bytes are signed, not the value)", () => {
    const spaced = vectors.find((x) => x.name.startsWith("whitespace"));
    const compact = vectors.find((x) => x.name.startsWith("same JSON value"));
    if (!spaced || !compact) throw new Error("vectors missing");
    expect(JSON.parse(Buffer.from(spaced.bodyHex, "hex").toString())).toEqual(
      JSON.parse(Buffer.from(compact.bodyHex, "hex").toString()),
    );
    expect(spaced.timestamp).toBe(compact.timestamp);
    expect(spaced.signature).not.toBe(compact.signature);
  });

  it("uses lowercase hex of 32 bytes", () => {
    expect(computeSignature("k", 1, "{}")).toMatch(/^v1=[0-9a-f]{64}$/);
  });
});

describe("§6.2 delivery headers", () => {
  const input: SignWebhookInput = {
    secret: "whsec_7Hq2Zk9pLm3Xv8Rt",
    secretVersion: 2,
    event: "appointment.booked",
    deliveryId: "dlv_0123",
    timestamp: 1767225600,
    rawBody: '{"id":"evt_1"}',
  };

  it("sets event, delivery id, timestamp, secret version, signature and content type", () => {
    const headers = signWebhook(input);
    expect(headers).toEqual({
      [WEBHOOK_HEADERS.event]: "appointment.booked",
      [WEBHOOK_HEADERS.deliveryId]: "dlv_0123",
      [WEBHOOK_HEADERS.timestamp]: "1767225600",
      [WEBHOOK_HEADERS.secretVersion]: "2",
      [WEBHOOK_HEADERS.signature]: referenceSignature(input.secret, input.timestamp, utf8('{"id":"evt_1"}')),
      "content-type": "application/json",
    });
  });

  it("makes a new dlv_ delivery id every time (unique per attempt)", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newDeliveryId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^dlv_[0-9a-z]{26}$/);
  });

  it.each([
    ["a fractional timestamp", { timestamp: 1.5 }],
    ["a negative timestamp", { timestamp: -1 }],
    ["secret version 0", { secretVersion: 0 }],
    ["an event with a line break", { event: "a\r\nx-evil: 1" }],
    ["an empty delivery id", { deliveryId: "" }],
    ["an empty secret", { secret: "" }],
  ])("refuses to sign %s", (_name, change) => {
    expect(() => signWebhook({ ...input, ...change })).toThrow(RangeError);
  });
});
