import { describe, expect, it } from "vitest";
import { API_VERSION, SCHEMA_VERSION } from "../../src/contract/api-version.js";
import {
  buildEnvelope,
  encodeEnvelope,
  newEventId,
  webhookEnvelopeSchema,
} from "../../src/contract/webhook-envelope.js";

const input = {
  id: "evt_0001",
  event: "appointment.booked",
  occurredAt: new Date("2026-03-01T10:00:00Z"),
  resource: { type: "appointment", id: "apt_42", version: 3 },
  data: { startsAt: "2026-03-02T09:00:00.000Z" },
};

describe("§6.1 envelope", () => {
  it("carries id, event, the current apiVersion and schemaVersion, occurredAt in UTC, resource and data", () => {
    expect(buildEnvelope(input)).toEqual({
      id: "evt_0001",
      event: "appointment.booked",
      apiVersion: API_VERSION,
      schemaVersion: SCHEMA_VERSION,
      occurredAt: "2026-03-01T10:00:00.000Z",
      resource: { type: "appointment", id: "apt_42", version: 3 },
      data: { startsAt: "2026-03-02T09:00:00.000Z" },
    });
    expect(API_VERSION).toBe("2026-08-26");
    expect(SCHEMA_VERSION).toBe(1);
  });

  it("keeps the event id it is given, so every retry carries the same one", () => {
    const id = newEventId();
    expect(id).toMatch(/^evt_[0-9a-z]{26}$/);
    expect(buildEnvelope({ ...input, id }).id).toBe(id);
    expect(buildEnvelope({ ...input, id }).id).toBe(buildEnvelope({ ...input, id }).id);
  });

  it("delivers a newer schemaVersion only when asked (§9.4 opt-in)", () => {
    expect(buildEnvelope({ ...input, schemaVersion: 2 }).schemaVersion).toBe(2);
  });

  it.each([
    ["an id without the evt_ prefix", { id: "ev_1" }],
    ["an empty event name", { event: "" }],
    ["a non-UTC occurredAt", { occurredAt: "2026-03-01T10:00:00+02:00" }],
    ["a fractional resource version", { resource: { type: "appointment", id: "apt_1", version: 1.5 } }],
    ["a resource without an id", { resource: { type: "appointment", id: "", version: 1 } }],
  ])("rejects %s", (_name, change) => {
    expect(() => buildEnvelope({ ...input, ...change })).toThrow();
  });

  it("keeps fields it does not know, at the top and in resource (§9.2 additive changes)", () => {
    const parsed = webhookEnvelopeSchema.parse({
      ...buildEnvelope(input),
      traceId: "t-1",
      resource: { ...input.resource, url: "https://x" },
    });
    expect(parsed.traceId).toBe("t-1");
    expect(parsed.resource.url).toBe("https://x");
  });

  it("encodes to the JSON bytes that are signed and sent", () => {
    const envelope = buildEnvelope(input);
    const encoded = encodeEnvelope(envelope);
    expect(JSON.parse(new TextDecoder().decode(encoded))).toEqual(envelope);
  });
});
