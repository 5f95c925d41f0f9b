import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDiff, jsonDiff } from "../../../src/gateway/profiles/diff.js";
import { judge } from "../../../src/gateway/profiles/golden.js";
import {
  type GoldenSample,
  type MappingOutcome,
  ProfileEngine,
  runGoldenSamples,
} from "../../../src/gateway/profiles/index.js";

const body = { fullName: "Ann Lee", email: "ann@example.com", phone: "+15125550123", address: "1 Main St" };
const ok: MappingOutcome = { ok: true, body, elapsedMs: 1 };
const invalidEmail: MappingOutcome = {
  ok: false,
  kind: "validation",
  field: "email",
  message: "must be a valid email address",
  sourcePath: "mail",
  output: {},
  elapsedMs: 1,
};
const sample = (expect: GoldenSample["expect"]): GoldenSample => ({ name: "s", payload: {}, expect });

describe("golden samples: what a sample expects (docs/profiles.md)", () => {
  it("passes a body sample only on an identical canonical body", () => {
    expect(judge(sample({ body }), ok)).toMatchObject({ passed: true, diff: [] });
    const result = judge(sample({ body: { ...body, email: "other@example.com" } }), ok);
    expect(result).toMatchObject({ passed: false, reason: "the body differs in 1 place(s)" });
    expect(result.diff).toEqual([{ path: "$.email", expected: "other@example.com", actual: "ann@example.com" }]);
  });

  it("fails a body sample that got an error, saying which", () => {
    expect(judge(sample({ body }), invalidEmail).reason).toBe(
      "expected a body, got a validation error on email (from mail): must be a valid email address",
    );
  });

  it("passes an error sample on the expected field (a field implies a validation error)", () => {
    expect(judge(sample({ error: { field: "email" } }), invalidEmail).passed).toBe(true);
    expect(judge(sample({ error: { field: "phone" } }), invalidEmail).passed).toBe(false);
  });

  it("passes an error sample on the expected kind, and any error when none is named", () => {
    const mapping: MappingOutcome = { ok: false, kind: "mapping", message: "boom", position: 3, elapsedMs: 1 };
    expect(judge(sample({ error: { kind: "mapping" } }), mapping).passed).toBe(true);
    expect(judge(sample({ error: { kind: "guardrail" } }), mapping).passed).toBe(false);
    expect(judge(sample({ error: {} }), mapping).passed).toBe(true);
  });

  it("fails an error sample that produced a valid body", () => {
    expect(judge(sample({ error: { field: "email" } }), ok)).toMatchObject({
      passed: false,
      reason: "expected validation error on email, got a valid body",
    });
  });
});

describe("golden samples of records: exactly these records, in order (D-303)", () => {
  const lead = { kind: "lead", id: "s-1", body } as const;
  const appointment = {
    kind: "appointment",
    id: "s-1:slot",
    body: { startsAt: "2026-12-01T15:00:00.000Z", endsAt: "2026-12-01T16:00:00.000Z", idempotencyKey: "qf:s-1" },
  } as const;
  const records: MappingOutcome = { ok: true, records: [lead, appointment], elapsedMs: 1 };

  it("passes on identical records, and names the record and field that differ", () => {
    expect(judge(sample({ records: [lead, appointment] }), records)).toMatchObject({ passed: true, diff: [] });
    const later = { ...appointment, body: { ...appointment.body, startsAt: "2026-12-01T15:30:00.000Z" } };
    const result = judge(sample({ records: [lead, later] }), records);
    expect(result).toMatchObject({ passed: false, reason: "the records differ in 1 place(s)" });
    expect(result.diff.map(formatDiff)).toEqual([
      'records[1].body.startsAt: expected "2026-12-01T15:30:00.000Z", got "2026-12-01T15:00:00.000Z"',
    ]);
  });

  it("fails on a missing or extra record, and on a field of the record itself", () => {
    expect(judge(sample({ records: [lead] }), records).diff.map((d) => d.path)).toEqual(["records[1]"]);
    const test = judge(sample({ records: [{ ...lead, test: true }, appointment] }), records);
    expect(test.diff.map(formatDiff)).toEqual(["records[0].test: expected true, got (absent)"]);
  });

  it("tells records from a body either way", () => {
    expect(judge(sample({ records: [lead] }), ok).reason).toBe("expected records, got a valid body");
    expect(judge(sample({ body }), records).reason).toBe("expected a body, got 2 valid records (lead, appointment)");
    expect(judge(sample({ error: { field: "records[1].startsAt" } }), records).reason).toBe(
      "expected validation error on records[1].startsAt, got 2 valid records (lead, appointment)",
    );
  });

  it("passes an error sample naming a record's field", () => {
    const invalid: MappingOutcome = { ...invalidEmail, field: "records[0].email" };
    expect(judge(sample({ error: { field: "records[0].email" } }), invalid).passed).toBe(true);
    expect(judge(sample({ error: { field: "email" } }), invalid).passed).toBe(false);
  });
});

describe("golden samples: the field-by-field diff", () => {
  it("walks objects and arrays, and shows absent keys", () => {
    const diff = jsonDiff({ a: { b: [1, 2] }, c: true }, { a: { b: [1, 3, 4] }, d: null });
    expect(diff.map(formatDiff)).toEqual([
      "$.a.b[1]: expected 2, got 3",
      "$.a.b[2]: expected (absent), got 4",
      "$.c: expected true, got (absent)",
      "$.d: expected (absent), got null",
    ]);
  });
});

describe("golden samples: the runner (a profile whose samples fail cannot be published)", () => {
  let engine: ProfileEngine;
  beforeAll(() => {
    engine = new ProfileEngine({ poolSize: 1 });
  });
  afterAll(() => engine.close());

  const expression = '{"fullName": name, "email": $normalizeEmail(mail), "phone": $phoneE164(tel), "address": addr}';
  const payload = { name: "Ann Lee", mail: "ANN@example.com", tel: "512 555 0123", addr: "1 Main St" };

  it("passes when every sample passes, and reports each in order", async () => {
    const report = await runGoldenSamples(engine, {
      versionId: "g1",
      kind: "lead",
      expression,
      samples: [
        { name: "good", payload, expect: { body } },
        { name: "bad email", payload: { ...payload, mail: "nope" }, expect: { error: { field: "email" } } },
      ],
    });
    expect(report).toMatchObject({ passed: true, total: 2, failed: 0 });
    expect(report.results.map((r) => [r.name, r.passed])).toEqual([
      ["good", true],
      ["bad email", true],
    ]);
  });

  it("fails when one sample fails, with its diff", async () => {
    const report = await runGoldenSamples(engine, {
      versionId: "g2",
      kind: "lead",
      expression,
      samples: [{ name: "typo in expectation", payload, expect: { body: { ...body, fullName: "Anne Lee" } } }],
    });
    expect(report).toMatchObject({ passed: false, total: 1, failed: 1 });
    expect(report.results[0]?.diff).toEqual([{ path: "$.fullName", expected: "Anne Lee", actual: "Ann Lee" }]);
  });

  it("fails every sample of an expression that does not compile, with the line and column", async () => {
    const report = await runGoldenSamples(engine, {
      versionId: "g3",
      kind: "lead",
      expression: '{\n  "fullName": \n}',
      samples: [{ name: "good", payload, expect: { body } }],
    });
    expect(report).toMatchObject({ passed: false, total: 1, failed: 1, results: [], compileError: { line: 3 } });
  });

  it("runs samples that expect records through the engine, with the diff on a wrong one", async () => {
    const records = `[{"kind": "lead", "id": ref, "body": ${expression}}, {"kind": "appointment", "body": {"startsAt": at, "endsAt": until, "idempotencyKey": "booking:" & ref}}]`;
    const booking = { ...payload, ref: "s-1", at: "2026-12-01T15:00:00Z", until: "2026-12-01T16:00:00Z" };
    const expected = [
      { kind: "lead", id: "s-1", body },
      { kind: "appointment", body: { startsAt: booking.at, endsAt: booking.until, idempotencyKey: "booking:s-1" } },
    ];
    const report = await runGoldenSamples(engine, {
      versionId: "g5",
      kind: "lead",
      expression: records,
      samples: [
        { name: "good", payload: booking, expect: { records: expected } },
        {
          name: "ends first",
          payload: { ...booking, until: booking.at },
          expect: { error: { field: "records[1].endsAt" } },
        },
        { name: "typo", payload: booking, expect: { records: [expected[0], { ...expected[1], id: "s-1:slot" }] } },
      ],
    });
    expect(report.results.map((r) => [r.name, r.passed, r.diff.map(formatDiff)])).toEqual([
      ["good", true, []],
      ["ends first", true, []],
      ["typo", false, ['records[1].id: expected "s-1:slot", got (absent)']],
    ]);
  });

  it("does not pass a profile without samples: untested is unpublishable", async () => {
    const report = await runGoldenSamples(engine, { versionId: "g4", kind: "lead", expression, samples: [] });
    expect(report).toMatchObject({ passed: false, total: 0, failed: 0 });
  });
});
