import { describe, expect, it } from "vitest";
import type { ReplayStore } from "../../src/contract/replay-store.js";
import { SecretRing } from "../../src/contract/secret-ring.js";
import { newDeliveryId, signWebhook } from "../../src/contract/signing.js";
import { readEnvelope, readJson } from "../../src/contract/webhook-body.js";
import { buildEnvelope, encodeEnvelope } from "../../src/contract/webhook-envelope.js";
import { type HeaderSource, verifyWebhook } from "../../src/contract/webhook-verify.js";

const NOW = 1_767_225_600;
const SECRETS = SecretRing.of([
  { version: 1, secret: "whsec_one" },
  { version: 2, secret: "whsec_two" },
]);

/** Records what reaches the store, to see which steps ran. */
class RecordingStore implements ReplayStore {
  readonly deliveries = new Map<string, number>();
  readonly processed = new Set<string>();
  rememberDelivery(deliveryId: string, keepUntil: number): boolean {
    if (this.deliveries.has(deliveryId)) return false;
    this.deliveries.set(deliveryId, keepUntil);
    return true;
  }
  isEventProcessed(eventId: string): boolean {
    return this.processed.has(eventId);
  }
}

const envelopeBytes = encodeEnvelope(
  buildEnvelope({
    id: "evt_0001",
    event: "appointment.booked",
    occurredAt: "2026-01-01T00:00:00.000Z",
    resource: { type: "appointment", id: "apt_42", version: 1 },
    data: { startsAt: "2026-01-02T09:00:00.000Z" },
  }),
);

function signed(
  rawBody: Uint8Array | string = envelopeBytes,
  options: { version?: number; secret?: string; timestamp?: number; deliveryId?: string } = {},
): { headers: Record<string, string>; rawBody: Uint8Array | string } {
  const headers = signWebhook({
    secret: options.secret ?? "whsec_one",
    secretVersion: options.version ?? 1,
    event: "appointment.booked",
    deliveryId: options.deliveryId ?? newDeliveryId(),
    timestamp: options.timestamp ?? NOW,
    rawBody,
  });
  return { headers: { ...headers }, rawBody };
}

function verify(
  request: { headers: HeaderSource; rawBody: Uint8Array | string },
  store: ReplayStore = new RecordingStore(),
  nowSeconds = NOW,
) {
  return verifyWebhook(request, {
    secrets: SECRETS,
    replayStore: store,
    read: readEnvelope,
    now: () => nowSeconds * 1000,
  });
}

const without = (headers: Record<string, string>, name: string) =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => k !== name));

describe("§6.3.2 verify: HMAC over the raw body, constant-time compare", () => {
  it("accepts an authentic delivery and returns the event, the ids and the parsed envelope", async () => {
    const request = signed(envelopeBytes, { deliveryId: "dlv_a" });
    const result = await verify(request);
    expect(result).toMatchObject({
      ok: true,
      event: "appointment.booked",
      eventId: "evt_0001",
      deliveryId: "dlv_a",
      secretVersion: 1,
      timestamp: NOW,
    });
    if (!result.ok) throw new Error("expected ok");
    expect(result.body.resource).toEqual({ type: "appointment", id: "apt_42", version: 1 });
  });

  it("rejects a body with any single byte changed (§6.3.4)", async () => {
    const request = signed(envelopeBytes);
    for (let i = 0; i < envelopeBytes.length; i++) {
      const tampered = Uint8Array.from(envelopeBytes);
      tampered[i] = (tampered[i] ?? 0) ^ 0x01;
      const result = await verify({ headers: request.headers, rawBody: tampered });
      expect(result, `byte ${i}`).toMatchObject({ ok: false, reason: "bad_signature" });
    }
  });

  it("rejects a body that was re-serialised (same JSON value, other whitespace or key order)", async () => {
    const request = signed(envelopeBytes);
    const value = JSON.parse(new TextDecoder().decode(envelopeBytes));
    for (const reserialised of [JSON.stringify(value, null, 2), `${JSON.stringify(value)}\n`]) {
      expect(await verify({ headers: request.headers, rawBody: reserialised })).toMatchObject({
        reason: "bad_signature",
      });
    }
    const reordered = JSON.stringify({ event: value.event, ...value });
    expect(await verify({ headers: request.headers, rawBody: reordered })).toMatchObject({ reason: "bad_signature" });
  });

  it("covers the timestamp: a changed x-svc-timestamp with the old signature fails", async () => {
    const request = signed(envelopeBytes);
    const moved = { ...request.headers, "x-svc-timestamp": String(NOW - 1) };
    expect(await verify({ headers: moved, rawBody: request.rawBody })).toMatchObject({ reason: "bad_signature" });
  });

  it("rejects a signature made with another version's secret or an unknown secret", async () => {
    const wrongSecret = signed(envelopeBytes, { version: 2, secret: "whsec_one" });
    expect(await verify(wrongSecret)).toMatchObject({ reason: "bad_signature" });
    const forged = signed(envelopeBytes, { secret: "guessed" });
    expect(await verify(forged)).toMatchObject({ reason: "bad_signature" });
  });

  it.each([
    ["missing", undefined, "missing_signature"],
    ["empty", "", "missing_signature"],
    ["one hex digit short (length-safe, no throw)", `v1=${"a".repeat(63)}`, "malformed_signature"],
    ["one hex digit long", `v1=${"a".repeat(65)}`, "malformed_signature"],
    ["not hex", `v1=${"z".repeat(64)}`, "malformed_signature"],
    ["another scheme only", `v0=${"a".repeat(64)}`, "malformed_signature"],
    ["a bare digest", "a".repeat(64), "malformed_signature"],
    ["a well-formed wrong v1", `v1=${"a".repeat(64)}`, "bad_signature"],
  ])("rejects a signature that is %s", async (_name, value, reason) => {
    const request = signed();
    const headers =
      value === undefined
        ? without(request.headers, "x-svc-signature")
        : { ...request.headers, "x-svc-signature": value };
    expect(await verify({ headers, rawBody: request.rawBody })).toMatchObject({
      ok: false,
      reason,
      acknowledge: false,
    });
  });

  it("accepts a valid v1 entry in a list that also carries another scheme (a later scheme can be added)", async () => {
    const request = signed();
    const headers = {
      ...request.headers,
      "x-svc-signature": `v2=${"b".repeat(64)}, ${request.headers["x-svc-signature"]}`,
    };
    expect(await verify({ headers, rawBody: request.rawBody })).toMatchObject({ ok: true });
  });

  it("accepts the hex digits of a signature in upper case (docs/decisions.md, Webhooks)", async () => {
    const request = signed();
    const headers = {
      ...request.headers,
      "x-svc-signature": `v1=${(request.headers["x-svc-signature"] ?? "").slice(3).toUpperCase()}`,
    };
    expect(await verify({ headers, rawBody: request.rawBody })).toMatchObject({ ok: true });
  });

  it("reads header names case-insensitively from a plain object, and from Fetch Headers", async () => {
    const request = signed();
    const shouted = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(await verify({ headers: shouted, rawBody: request.rawBody })).toMatchObject({ ok: true });
    const fetchHeaders = new Headers(signed().headers);
    expect(await verify({ headers: fetchHeaders, rawBody: request.rawBody })).toMatchObject({ ok: true });
  });
});

describe("§6.3.3 unknown versions and missing timestamps are rejected", () => {
  it.each([
    ["missing", undefined, "missing_timestamp"],
    ["empty", "", "missing_timestamp"],
    ["fractional", `${NOW}.5`, "invalid_timestamp"],
    ["negative", "-5", "invalid_timestamp"],
    ["in exponent notation", "1.7e9", "invalid_timestamp"],
    ["padded with a space", ` ${NOW}`, "invalid_timestamp"],
    ["in milliseconds beyond any plausible length", "1".repeat(16), "invalid_timestamp"],
  ])("rejects a timestamp that is %s", async (_name, value, reason) => {
    const request = signed();
    const headers =
      value === undefined
        ? without(request.headers, "x-svc-timestamp")
        : { ...request.headers, "x-svc-timestamp": value };
    expect(await verify({ headers, rawBody: request.rawBody })).toMatchObject({ ok: false, reason });
  });

  it.each([
    ["missing", undefined, "missing_version"],
    ["not held", "3", "unknown_version"],
    ["zero", "0", "unknown_version"],
    ["zero-padded", "01", "unknown_version"],
    ["not a number", "one", "unknown_version"],
  ])("rejects a secret version that is %s", async (_name, value, reason) => {
    const request = signed();
    const headers =
      value === undefined
        ? without(request.headers, "x-svc-secret-version")
        : { ...request.headers, "x-svc-secret-version": value };
    expect(await verify({ headers, rawBody: request.rawBody })).toMatchObject({ ok: false, reason });
  });

  it("verifies each held version with its own secret", async () => {
    expect(await verify(signed(envelopeBytes, { version: 2, secret: "whsec_two" }))).toMatchObject({
      ok: true,
      secretVersion: 2,
    });
  });
});

describe("§6.3.2 / §8 timestamp within 300 seconds of the receiver's clock", () => {
  it.each([
    [-299, true],
    [-300, true],
    [-301, false],
    [299, true],
    [300, true],
    [301, false],
  ])("a delivery signed %i s from now is accepted: %s", async (offset, accepted) => {
    const result = await verify(signed(envelopeBytes, { timestamp: NOW + offset }));
    expect(result).toMatchObject(accepted ? { ok: true } : { ok: false, reason: "stale_timestamp" });
  });

  it("takes a configured tolerance", async () => {
    const request = signed(envelopeBytes, { timestamp: NOW - 61 });
    const options = { secrets: SECRETS, replayStore: new RecordingStore(), read: readEnvelope, now: () => NOW * 1000 };
    expect(await verifyWebhook(request, { ...options, toleranceSeconds: 60 })).toMatchObject({
      reason: "stale_timestamp",
    });
    expect(await verifyWebhook(request, { ...options, toleranceSeconds: 61 })).toMatchObject({ ok: true });
  });

  it("checks the signature before the clock: a forged, stale delivery is reported as a bad signature", async () => {
    const request = signed(envelopeBytes, { timestamp: NOW - 10_000, secret: "guessed" });
    expect(await verify(request)).toMatchObject({ reason: "bad_signature" });
  });
});

describe("§6.3.2 de-duplicate, after authentication and before parsing", () => {
  it("answers a second delivery with the same delivery id as a duplicate to acknowledge", async () => {
    const store = new RecordingStore();
    const request = signed(envelopeBytes, { deliveryId: "dlv_replayed" });
    expect(await verify(request, store)).toMatchObject({ ok: true });
    expect(await verify(request, store)).toEqual({
      ok: false,
      reason: "duplicate",
      acknowledge: true,
      deliveryId: "dlv_replayed",
      eventId: undefined,
    });
  });

  it("keeps a delivery id until its copies would be stale anyway", async () => {
    const store = new RecordingStore();
    await verify(signed(envelopeBytes, { deliveryId: "dlv_k", timestamp: NOW - 100 }), store);
    expect(store.deliveries.get("dlv_k")).toBe(NOW - 100 + 300 + 1);
  });

  it("never records forged or stale deliveries, so they cannot fill the store or pre-empt a real delivery id", async () => {
    const store = new RecordingStore();
    await verify(signed(envelopeBytes, { deliveryId: "dlv_forged", secret: "guessed" }), store);
    await verify(signed(envelopeBytes, { deliveryId: "dlv_stale", timestamp: NOW - 301 }), store);
    expect(store.deliveries.size).toBe(0);
    expect(await verify(signed(envelopeBytes, { deliveryId: "dlv_forged" }), store)).toMatchObject({ ok: true });
  });

  it("de-duplicates before parsing: a replayed unparsable body is a duplicate, not a parse error", async () => {
    const store = new RecordingStore();
    const request = signed("not json", { deliveryId: "dlv_np" });
    expect(await verify(request, store)).toMatchObject({ reason: "malformed_body" });
    expect(await verify(request, store)).toMatchObject({ reason: "duplicate", acknowledge: true });
  });

  it("requires a delivery id", async () => {
    const request = signed();
    const headers = without(request.headers, "x-svc-delivery-id");
    expect(await verify({ headers, rawBody: request.rawBody })).toMatchObject({ reason: "missing_delivery_id" });
  });
});

describe("§6.3.2 only then parse JSON", () => {
  it.each([
    ["not JSON", "not json"],
    ["JSON but not an envelope", '{"hello":"world"}'],
    ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d])],
  ])("rejects an authentic body that is %s as malformed", async (_name, body) => {
    expect(await verify(signed(body))).toMatchObject({ ok: false, reason: "malformed_body", acknowledge: false });
  });

  it("takes the event name from the signed body, not the unsigned header", async () => {
    const request = signed();
    const headers = { ...request.headers, "x-svc-event": "install.test" };
    expect(await verify({ headers, rawBody: request.rawBody })).toMatchObject({
      ok: true,
      event: "appointment.booked",
    });
  });

  it("reads a mapped (non-envelope) body with readJson, naming the event from the header", async () => {
    const request = signed('{"booking":{"ref":"evt_0009"}}');
    const result = await verifyWebhook(request, {
      secrets: SECRETS,
      replayStore: new RecordingStore(),
      read: readJson((body) => (body as { booking?: { ref?: string } }).booking?.ref),
      now: () => NOW * 1000,
    });
    expect(result).toMatchObject({
      ok: true,
      event: "appointment.booked",
      eventId: "evt_0009",
      body: { booking: { ref: "evt_0009" } },
    });
  });
});

describe("§6.6 an event already processed is acknowledged, not processed again", () => {
  it("answers a new delivery id of a processed event with already_processed to acknowledge", async () => {
    const store = new RecordingStore();
    const first = await verify(signed(envelopeBytes), store);
    expect(first).toMatchObject({ ok: true, eventId: "evt_0001" });
    store.processed.add("evt_0001");
    expect(await verify(signed(envelopeBytes), store)).toMatchObject({
      ok: false,
      reason: "already_processed",
      acknowledge: true,
      eventId: "evt_0001",
    });
  });

  it("still treats an event as new until the receiver marks it processed (a failed attempt is retried)", async () => {
    const store = new RecordingStore();
    expect(await verify(signed(envelopeBytes), store)).toMatchObject({ ok: true });
    expect(await verify(signed(envelopeBytes), store)).toMatchObject({ ok: true });
  });
});
