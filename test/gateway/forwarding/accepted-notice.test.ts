import { describe, expect, it } from "vitest";
import { acceptedMessage, parseAccepted } from "../../../src/gateway/forwarding/redis/keys.js";
import { chainedLead } from "../../../src/gateway/forwarding/upstream-request.js";

const lead = {
  id: "sub_lead1",
  kind: "lead" as const,
  companyId: "co_1",
  credentialId: "cred_1",
  nextAttemptAt: null,
  canonicalBody: { fullName: "Ada Lovelace", email: "ada@example.com" },
};

describe("the accepted notice: what the dispatcher admits without reading the row back", () => {
  it("carries a lead's route and due time, and none of its body", () => {
    const message = acceptedMessage(lead);
    expect(message).not.toContain("ada@example.com");
    expect(parseAccepted(message)).toEqual({ ...lead, canonicalBody: null });
  });

  it("carries the lead a chained appointment waits for, so that admission holds it (appointment chaining)", () => {
    const appointment = {
      ...lead,
      id: "sub_appt1",
      kind: "appointment" as const,
      nextAttemptAt: 1_700_000_000_000,
      canonicalBody: { leadId: "sub_lead1", startsAt: "2026-12-01T10:00:00Z" },
    };
    const parsed = parseAccepted(acceptedMessage(appointment));
    expect(typeof parsed).not.toBe("string");
    if (typeof parsed === "string") return;
    expect(chainedLead(parsed)).toBe("sub_lead1");
    expect(parsed).toMatchObject({ id: "sub_appt1", kind: "appointment", nextAttemptAt: 1_700_000_000_000 });
    // The control: an appointment without a lead carries none.
    const unchained = parseAccepted(acceptedMessage({ ...appointment, canonicalBody: { startsAt: "x" } }));
    expect(typeof unchained !== "string" && chainedLead(unchained)).toBeUndefined();
  });

  it("reads a bare id (a process of an earlier release) as the id, to be read from the database", () => {
    expect(parseAccepted("sub_lead1")).toBe("sub_lead1");
  });

  it("refuses a notice that is not one", () => {
    expect(() => parseAccepted('{"id":"sub_x"}')).toThrow();
    expect(() => parseAccepted("{not json")).toThrow();
  });
});
