import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MappingOutcome, ProfileEngine, type ProfileKind } from "../../../src/gateway/profiles/index.js";

let engine: ProfileEngine;
beforeAll(() => {
  engine = new ProfileEngine({ poolSize: 1 });
});
afterAll(() => engine.close());

let counter = 0;
const map = (kind: ProfileKind, expression: string, payload: unknown): Promise<MappingOutcome> =>
  engine.map({ versionId: `m${counter++}`, kind, expression, payload });

const vendor = {
  contact: { first: "Ann", last: "Lee", email: "ann@example.com", phone: "512 555 0123" },
  site: { street: "1 Main St", city: "Austin" },
};
const leadExpression = `{
  "fullName": $joinName(contact.first, contact.last),
  "email": contact.email,
  "phone": $phoneE164(contact.phone, "US"),
  "address": site.street & ", " & site.city
}`;

describe("mapping outcome: a valid canonical body (§2.7, §2.8)", () => {
  it("returns the lead body validated by the shared schema, with the evaluation time", async () => {
    const outcome = await map("lead", leadExpression, vendor);
    expect(outcome).toEqual({
      ok: true,
      body: { fullName: "Ann Lee", email: "ann@example.com", phone: "+15125550123", address: "1 Main St, Austin" },
      elapsedMs: expect.any(Number),
    });
    expect(outcome.elapsedMs).toBeGreaterThan(0);
  });

  it("drops keys the canonical body does not have", async () => {
    const outcome = await map("lead", `$merge([${leadExpression}, {"vendorScore": 97}])`, vendor);
    expect(outcome.ok && "body" in outcome && outcome.body).not.toHaveProperty("vendorScore");
  });

  it("validates an appointment with the §2.8 schema, endsAt after startsAt included", async () => {
    const expression = '{"leadId": "lead_1", "startsAt": s, "endsAt": e, "idempotencyKey": "booking-123"}';
    expect(
      await map("appointment", expression, { s: "2026-12-01T15:00:00Z", e: "2026-12-01T16:00:00Z" }),
    ).toMatchObject({
      ok: true,
    });
    expect(
      await map("appointment", expression, { s: "2026-12-01T15:00:00Z", e: "2026-12-01T14:00:00Z" }),
    ).toMatchObject({
      ok: false,
      kind: "validation",
      field: "endsAt",
    });
  });

  it("passes any object for an outbound profile, unvalidated", async () => {
    expect(await map("outbound", '{"anything": [1, 2]}', {})).toMatchObject({ ok: true, body: { anything: [1, 2] } });
  });
});

describe("mapping outcome: validation errors name the canonical field and, where knowable, the vendor's field", () => {
  it("names the vendor's field a simple path feeds", async () => {
    const outcome = await map("lead", leadExpression, { ...vendor, contact: { ...vendor.contact, email: "nope" } });
    expect(outcome).toEqual({
      ok: false,
      kind: "validation",
      field: "email",
      message: "must be a valid email address",
      sourcePath: "contact.email",
      output: { fullName: "Ann Lee", email: "nope", phone: "+15125550123", address: "1 Main St, Austin" },
      elapsedMs: expect.any(Number),
    });
  });

  it("names the vendor's field behind a function of one path", async () => {
    const outcome = await map("lead", leadExpression, { ...vendor, contact: { ...vendor.contact, phone: "n/a" } });
    expect(outcome).toMatchObject({ kind: "validation", field: "phone", sourcePath: "contact.phone" });
  });

  it("names the vendor's field of a required value the payload lacks", async () => {
    const outcome = await map("lead", leadExpression, { ...vendor, contact: { ...vendor.contact, email: undefined } });
    expect(outcome).toMatchObject({ kind: "validation", field: "email", sourcePath: "contact.email" });
  });

  it("claims no vendor field for a value built from several", async () => {
    const outcome = await map("lead", leadExpression, {
      ...vendor,
      contact: { ...vendor.contact, first: "", last: "" },
    });
    expect(outcome).toMatchObject({ kind: "validation", field: "fullName" });
    expect(outcome).not.toHaveProperty("sourcePath");
  });
});

describe("mapping outcome: mapping errors carry JSONata's message and position", () => {
  it("reports a runtime type error with its position", async () => {
    const outcome = await map("lead", '{"fullName": name + 1}', { name: "Ann" });
    expect(outcome).toMatchObject({ ok: false, kind: "mapping", position: 19 });
    expect(outcome.ok === false && outcome.kind === "mapping" && outcome.message).toMatch(/number/);
  });

  it("reports an expression that does not compile", async () => {
    expect(await map("lead", '{"fullName": }', {})).toMatchObject({ ok: false, kind: "mapping", position: 14 });
  });

  it.each([
    ["lead", "nothing", "missing.field"],
    ["lead", "a string", '"text"'],
    ["outbound", "an array", "[1, 2]"],
  ] as const)("refuses %s output that is not a JSON object (%s)", async (kind, got, expression) => {
    const outcome = await map(kind, expression, {});
    expect(outcome).toMatchObject({ ok: false, kind: "mapping", message: expect.stringContaining(got) });
  });

  it("reads a lead or appointment profile's array as a list of records, and names the item that is not one", async () => {
    // docs/profiles.md, "Records": an array is a list of records (records.test.ts has the rules).
    expect(await map("lead", "[1, 2]", {})).toMatchObject({ ok: false, kind: "validation", field: "records[0]" });
  });
});
