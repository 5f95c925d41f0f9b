import type * as Crypto from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";

const compared = vi.hoisted(() => ({ calls: 0 }));

vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof Crypto>();
  return {
    ...actual,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.calls += 1;
      return actual.timingSafeEqual(a, b);
    },
  };
});

const { SecretRing } = await import("../../src/contract/secret-ring.js");
const { signWebhook } = await import("../../src/contract/signing.js");
const { readJson } = await import("../../src/contract/webhook-body.js");
const { verifyWebhook } = await import("../../src/contract/webhook-verify.js");

const NOW = 1_767_225_600;
const options = {
  secrets: SecretRing.of([{ version: 1, secret: "whsec_one" }]),
  replayStore: { rememberDelivery: () => true, isEventProcessed: () => false },
  read: readJson(),
  now: () => NOW * 1000,
};
const headers = signWebhook({
  secret: "whsec_one",
  secretVersion: 1,
  event: "install.test",
  deliveryId: "dlv_ct",
  timestamp: NOW,
  rawBody: "{}",
});

beforeEach(() => {
  compared.calls = 0;
});

describe("§6.3.2 compare in constant time", () => {
  it("compares a wrong signature with timingSafeEqual", async () => {
    const wrong = { ...headers, "x-svc-signature": `v1=${"0".repeat(64)}` };
    expect(await verifyWebhook({ headers: wrong, rawBody: "{}" }, options)).toMatchObject({ reason: "bad_signature" });
    expect(compared.calls).toBe(1);
  });

  it("compares every presented v1 value, even after one matched (no early exit)", async () => {
    const two = { ...headers, "x-svc-signature": `${headers["x-svc-signature"]},v1=${"0".repeat(64)}` };
    expect(await verifyWebhook({ headers: two, rawBody: "{}" }, options)).toMatchObject({ ok: true });
    expect(compared.calls).toBe(2);
  });

  it("never calls the comparison with a value of the wrong length (it would throw)", async () => {
    const short = { ...headers, "x-svc-signature": `v1=${"0".repeat(62)}` };
    expect(await verifyWebhook({ headers: short, rawBody: "{}" }, options)).toMatchObject({
      reason: "malformed_signature",
    });
    expect(compared.calls).toBe(0);
  });
});
