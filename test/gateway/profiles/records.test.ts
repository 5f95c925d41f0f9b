import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Evaluator } from "../../../src/gateway/profiles/evaluator.js";
import { type MappingOutcome, ProfileEngine, type ProfileKind } from "../../../src/gateway/profiles/index.js";
import { InlineEvaluator } from "../../../src/gateway/profiles/inline.js";

/**
 * docs/profiles.md, "Records" (docs/decisions.md D-300, D-301): a lead or appointment profile may produce, besides one
 * canonical body, a record `{kind, id?, body, test?, action?}` or a list of them; each body is validated by its own
 * kind's schema, and an appointment without a leadId is chained to the lead record before it. Every rule is checked on
 * both evaluation paths: the compiled one and JSONata's interpreter.
 */

const PATHS = [
  ["compiled", new Evaluator(undefined, { checkedEvaluations: 0 })],
  ["interpreted", new Evaluator(undefined, { compiler: false })],
] as const;

let counter = 0;
function evaluatorOf(evaluator: Evaluator) {
  return async (expression: string, payload: unknown = {}, kind: ProfileKind = "lead") => {
    const {
      id: _id,
      elapsedMs: _elapsed,
      trusted: _trusted,
      ...outcome
    } = await evaluator.evaluate({
      id: counter++,
      versionId: `records-${counter}`,
      kind,
      expression,
      payload,
      timeoutMs: 5_000,
    });
    return outcome;
  };
}

const contact = { name: "Ann Lee", email: "ann@example.com", phone: "+15125550123", address: "1 Main St, Austin" };
const LEAD_BODY = '{"fullName": name, "email": email, "phone": phone, "address": address}';
const leadBody = { fullName: "Ann Lee", email: "ann@example.com", phone: "+15125550123", address: "1 Main St, Austin" };
const slot = { startsAt: "2026-12-01T15:00:00.000Z", endsAt: "2026-12-01T16:00:00.000Z", idempotencyKey: "slot-0001" };
const APPOINTMENT_BODY = '{"startsAt": startsAt, "endsAt": endsAt, "idempotencyKey": key}';
const booking = { ...contact, startsAt: slot.startsAt, endsAt: slot.endsAt, key: slot.idempotencyKey };

describe.each(PATHS)("records (%s path)", (_path, evaluator) => {
  const evaluate = evaluatorOf(evaluator);

  describe("what a profile may produce (D-300)", () => {
    it("a canonical body is still one body of the profile's kind (positive control)", async () => {
      expect(await evaluate(LEAD_BODY, contact)).toEqual({ ok: true, body: leadBody });
    });

    it("a record is a list of one, with the fields the profile set and nothing else", async () => {
      const expression = `{"kind": "lead", "id": "sub-1", "body": ${LEAD_BODY}, "test": true, "action": "create"}`;
      expect(await evaluate(expression, contact)).toEqual({
        ok: true,
        records: [{ kind: "lead", id: "sub-1", body: leadBody, test: true, action: "create" }],
      });
      expect(await evaluate(`{"kind": "lead", "body": ${LEAD_BODY}}`, contact)).toEqual({
        ok: true,
        records: [{ kind: "lead", body: leadBody }],
      });
    });

    it("a list keeps its order, and each body is validated by its own kind (extra keys dropped, and named: D-321)", async () => {
      const expression = `[
        {"kind": "appointment", "body": {"leadId": "lead_7", "startsAt": startsAt, "endsAt": endsAt, "idempotencyKey": key, "x": 1}},
        {"kind": "lead", "id": "l-1", "body": $merge([${LEAD_BODY}, {"vendorScore": 97}])}
      ]`;
      expect(await evaluate(expression, booking)).toEqual({
        ok: true,
        records: [
          { kind: "appointment", body: { leadId: "lead_7", ...slot } },
          { kind: "lead", id: "l-1", body: leadBody },
        ],
        dropped: ["records[0].body.x", "records[1].body.vendorScore"],
      });
    });

    it("a path over a vendor's list gives one record per item, and one item is still a record", async () => {
      const expression = `leads.{"kind": "lead", "id": ref, "body": ${LEAD_BODY}}`;
      const two = {
        leads: [
          { ...contact, ref: "a" },
          { ...contact, ref: "b" },
        ],
      };
      expect(await evaluate(expression, two)).toMatchObject({ ok: true, records: [{ id: "a" }, { id: "b" }] });
      expect(await evaluate(expression, { leads: [{ ...contact, ref: "a" }] })).toEqual({
        ok: true,
        records: [{ kind: "lead", id: "a", body: leadBody }],
      });
    });

    it("an outbound profile's output is its body as it is, record-shaped or not", async () => {
      expect(await evaluate('{"kind": "lead", "body": {"a": 1}}', {}, "outbound")).toEqual({
        ok: true,
        body: { kind: "lead", body: { a: 1 } },
      });
    });
  });

  describe("a record's own fields", () => {
    const record = (fields: string) => `[{"kind": "lead", "body": ${LEAD_BODY}}, {"kind": "lead", ${fields}}]`;

    it.each([
      ['"body": {}, "id": ""', "records[1].id", "must be at least 1 characters"],
      [`"body": {}, "id": "${"x".repeat(201)}"`, "records[1].id", "must be at most 200 characters"],
      ['"body": {}, "action": "delete"', "records[1].action", "must be create, reschedule or cancel"],
      ['"body": {}, "test": "yes"', "records[1].test", "must be true or false"],
      ['"body": "text"', "records[1].body", "must be an object (the canonical body)"],
      ['"body": {}, "actoin": "cancel"', "records[1].actoin", "is not a field of a record"],
    ])("%s → %s", async (fields, field, message) => {
      expect(await evaluate(record(fields), contact)).toMatchObject({ ok: false, kind: "validation", field, message });
    });

    it("an id of 200 characters and every action are accepted", async () => {
      for (const action of ["create", "reschedule", "cancel"]) {
        const expression = record(`"id": "${"x".repeat(200)}", "action": "${action}", "body": ${LEAD_BODY}`);
        expect(await evaluate(expression, contact)).toMatchObject({ ok: true, records: [{}, { action }] });
      }
    });

    it("a kind other than lead or appointment, an item that is not an object", async () => {
      expect(await evaluate(`{"kind": "outbound", "body": ${LEAD_BODY}}`, contact)).toMatchObject({
        field: "records[0].kind",
        message: "must be lead or appointment",
      });
      expect(await evaluate(`[{"kind": "lead", "body": ${LEAD_BODY}}, "x"]`, contact)).toMatchObject({
        field: "records[1]",
        message: "must be a record: an object with kind and body",
      });
    });

    it("an empty list is no record: a notification that carries none (a message, a deletion)", async () => {
      expect(await evaluate('event = "message" ? [] : [{"kind": "lead", "body": {}}]', { event: "message" })).toEqual({
        ok: true,
        records: [],
      });
      // Nothing at all is still a mapping error, as it always was: a profile says "no record" with [].
      expect(await evaluate('event = "lead" ? {"kind": "lead", "body": {}}', { event: "message" })).toMatchObject({
        ok: false,
        kind: "mapping",
      });
    });
  });

  describe("validation names the record and the field, and the vendor's field where plain", () => {
    it("in a list written out, by the record's index", async () => {
      const expression = `[
        {"kind": "lead", "body": {"fullName": contact.name, "email": contact.email, "phone": "5125550123", "address": "1 Main"}},
        {"kind": "appointment", "body": {"startsAt": slot.from, "endsAt": slot.to, "idempotencyKey": "k-000001"}}
      ]`;
      const payload = {
        contact: { name: "Ann", email: "ann@example.com" },
        slot: { from: "tomorrow", to: slot.endsAt },
      };
      expect(await evaluate(expression, payload)).toMatchObject({
        ok: false,
        kind: "validation",
        field: "records[1].startsAt",
        message: "must be an ISO-8601 UTC timestamp ending in Z",
        sourcePath: "slot.from",
        output: [{ kind: "lead" }, { kind: "appointment" }],
      });
      const badEmail = { ...payload, contact: { ...payload.contact, email: "nope" }, slot: { from: slot.startsAt } };
      expect(await evaluate(expression, badEmail)).toMatchObject({
        field: "records[0].email",
        sourcePath: "contact.email",
      });
    });

    it("in one record, and in records made per item of a vendor's list", async () => {
      expect(await evaluate(`{"kind": "lead", "body": {"email": $normalizeEmail(mail)}}`, { mail: "x" })).toMatchObject(
        {
          field: "records[0].fullName",
        },
      );
      expect(
        await evaluate('{"kind": "lead", "body": {"fullName": "A", "email": $normalizeEmail(mail)}}', { mail: "x" }),
      ).toMatchObject({ field: "records[0].email", sourcePath: "mail" });
      const perItem = `items.{"kind": "lead", "body": {"fullName": n, "email": m, "phone": "5125550123", "address": "1 Main"}}`;
      expect(
        await evaluate(perItem, {
          items: [
            { n: "A", m: "a@b.co" },
            { n: "B", m: "bad" },
          ],
        }),
      ).toMatchObject({
        field: "records[1].email",
        sourcePath: "items.m",
      });
    });

    it("claims no vendor field for a record's own field built from several", async () => {
      const outcome = await evaluate(`{"kind": "lead", "id": a & b, "body": ${LEAD_BODY}}`, {
        ...contact,
        a: "",
        b: "",
      });
      expect(outcome).toMatchObject({ field: "records[0].id" });
      expect(outcome).not.toHaveProperty("sourcePath");
    });
  });

  describe("an appointment without a leadId is chained to the lead before it (D-301)", () => {
    const lead = `{"kind": "lead", "id": "l-1", "body": ${LEAD_BODY}}`;
    const appointment = `{"kind": "appointment", "id": "a-1", "body": ${APPOINTMENT_BODY}}`;

    it("is valid after a lead record, its body without a leadId, its other fields validated", async () => {
      expect(await evaluate(`[${lead}, ${appointment}]`, booking)).toEqual({
        ok: true,
        records: [
          { kind: "lead", id: "l-1", body: leadBody },
          { kind: "appointment", id: "a-1", body: slot },
        ],
      });
      const backwards = { ...booking, endsAt: "2026-12-01T14:00:00.000Z" };
      expect(await evaluate(`[${lead}, ${appointment}]`, backwards)).toMatchObject({
        field: "records[1].endsAt",
        message: "must be after startsAt",
      });
      expect(await evaluate(`[${lead}, ${appointment}]`, { ...booking, key: "short" })).toMatchObject({
        field: "records[1].idempotencyKey",
      });
    });

    it("keeps a leadId the profile set, with or without a lead before it", async () => {
      const named = `{"kind": "appointment", "body": $merge([${APPOINTMENT_BODY}, {"leadId": "sub_1"}])}`;
      expect(await evaluate(named, booking)).toEqual({
        ok: true,
        records: [{ kind: "appointment", body: { ...slot, leadId: "sub_1" } }],
      });
    });

    it("a reschedule or cancellation needs no lead before it: it is stored and shown, never sent", async () => {
      for (const action of ["reschedule", "cancel"]) {
        const change = `{"kind": "appointment", "id": "a-1", "action": "${action}", "body": ${APPOINTMENT_BODY}}`;
        expect(await evaluate(`[${change}]`, booking)).toEqual({
          ok: true,
          records: [{ kind: "appointment", id: "a-1", body: slot, action }],
        });
      }
      const created = `{"kind": "appointment", "action": "create", "body": ${APPOINTMENT_BODY}}`;
      expect(await evaluate(created, booking)).toMatchObject({ ok: false, field: "records[0].leadId" });
    });

    it("is a validation error on leadId with no lead before it, even with one after it", async () => {
      for (const expression of [appointment, `[${appointment}, ${lead}]`]) {
        expect(await evaluate(expression, booking)).toMatchObject({
          ok: false,
          kind: "validation",
          field: "records[0].leadId",
          message: "is required: no lead record comes before this appointment to chain it to",
        });
      }
    });

    it("names the vendor's field the profile read the leadId from, when the payload lacked it", async () => {
      const fromPayload = `{"kind": "appointment", "body": {"leadId": ref, "startsAt": startsAt, "endsAt": endsAt, "idempotencyKey": key}}`;
      expect(await evaluate(fromPayload, booking)).toMatchObject({ field: "records[0].leadId", sourcePath: "ref" });
    });

    it("is the profile's own appointment body unchanged: a canonical appointment still needs its leadId", async () => {
      expect(await evaluate(APPOINTMENT_BODY, booking, "appointment")).toMatchObject({
        ok: false,
        field: "leadId",
      });
    });
  });
});

describe("records: the engine, the evaluators and the inline path agree", () => {
  let engine: ProfileEngine;
  beforeAll(() => {
    engine = new ProfileEngine({ poolSize: 1 });
  });
  afterAll(() => engine.close());

  const expression = `[{"kind": "lead", "id": id, "body": ${LEAD_BODY}}, {"kind": "appointment", "body": ${APPOINTMENT_BODY}}]`;
  const payload = { ...booking, id: "sub-9" };
  const expected: MappingOutcome = {
    ok: true,
    records: [
      { kind: "lead", id: "sub-9", body: leadBody },
      { kind: "appointment", body: slot },
    ],
    elapsedMs: expect.any(Number),
  };

  it("answers records through the evaluator pool", async () => {
    expect(await engine.map({ versionId: "records-pool", kind: "lead", expression, payload })).toEqual(expected);
  });

  it("answers the same records inline, and hands an invalid list to the evaluators", async () => {
    const inline = new InlineEvaluator();
    inline.trust("records-inline", expression);
    const input = { versionId: "records-inline", kind: "lead" as const, expression, payload, payloadChars: 200 };
    expect(inline.map(input).outcome).toEqual(expected);
    expect(inline.map({ ...input, payload: { ...payload, key: "short" } })).toEqual({ overtime: false });
    expect(inline.stats()).toEqual({ evaluations: 1, handedOff: 1, demotions: 0 });
  });
});
