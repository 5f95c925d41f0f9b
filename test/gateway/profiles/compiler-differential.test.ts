import { describe, expect, it } from "vitest";
import { Evaluator } from "../../../src/gateway/profiles/evaluator.js";
import { findProfileDirs, type LoadedProfile, loadProfileDir } from "../../../src/gateway/profiles/index.js";
import type { EvaluateRequest } from "../../../src/gateway/profiles/protocol.js";
import { compiledOf, interpreterOf, type Result, runCompiled } from "./compiler-harness.js";

/**
 * Every shipped profile, on its golden samples and on payloads a vendor might really send instead (fields missing,
 * null, a list where one value was, one value where a list was, numbers as text, empty and nested lists): the
 * compiled path gives exactly the interpreter's result, or the same error.
 */
const profiles: LoadedProfile[] = await Promise.all((await findProfileDirs("profiles")).map(loadProfileDir));
const VARIANTS_PER_SAMPLE = 150;

/** mulberry32: the same "random" payloads on every run, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Container = Json[] | { [key: string]: Json };

/** Every (container, key) in a document, so a mutation can land anywhere. */
function slots(value: Json, found: [Container, string | number][] = []): [Container, string | number][] {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      found.push([value, index]);
      slots(item, found);
    });
  } else if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) {
      found.push([value, key]);
      slots(value[key] as Json, found);
    }
  }
  return found;
}

const MUTATIONS: ((value: Json, next: () => number) => Json | undefined)[] = [
  () => undefined, // the field goes missing
  () => null,
  (value) => [value], // a list of one where one value was
  (value) => (Array.isArray(value) ? (value[0] ?? null) : value), // one value where a list was
  () => [],
  (value) => [[value]],
  (value) => [value, value],
  (value) =>
    typeof value === "number"
      ? String(value)
      : typeof value === "string" && value !== ""
        ? Number(value) || value.length
        : value,
  () => "",
  (_value, next) => next() < 0.5,
  () => ({}),
  (value) => (typeof value === "string" ? `  ${value.toUpperCase()}  ` : value),
];

function perturbed(payload: unknown, next: () => number): unknown {
  const copy = structuredClone(payload) as Json;
  const count = 1 + Math.floor(next() * 3);
  for (let i = 0; i < count; i++) {
    const candidates = slots(copy);
    const target = candidates[Math.floor(next() * candidates.length)];
    if (!target) break;
    const [container, key] = target;
    const mutate = MUTATIONS[Math.floor(next() * MUTATIONS.length)];
    if (!mutate) continue;
    const current = (container as Record<string | number, Json>)[key] as Json;
    const replaced = mutate(current, next);
    if (replaced === undefined && !Array.isArray(container)) delete container[key as string];
    else (container as Record<string | number, Json | null>)[key] = replaced ?? null;
  }
  return copy;
}

function payloadsOf(profile: LoadedProfile): unknown[] {
  const next = random(profile.name.length * 7919);
  const payloads: unknown[] = [];
  for (const sample of profile.samples) {
    payloads.push(sample.payload);
    for (let i = 0; i < VARIANTS_PER_SAMPLE; i++) payloads.push(perturbed(sample.payload, next));
  }
  return payloads;
}

const compiledProfiles = profiles.filter((profile) => typeof compiledOf(profile.expression) !== "string");

describe("the compiled path on the shipped profiles", () => {
  it("compiles every shipped profile without a lambda, and only those", () => {
    const withLambda = profiles.filter((profile) => profile.expression.includes("function(")).map((p) => p.name);
    expect(withLambda.sort()).toEqual(["runaway-retry-loop", "surveyjet-qa"]);
    expect(compiledProfiles.map((p) => p.name).sort()).toEqual(
      profiles
        .map((p) => p.name)
        .filter((name) => !withLambda.includes(name))
        .sort(),
    );
  });

  it.each(compiledProfiles.map((p) => [p.name, p] as const))(
    "%s: golden samples and perturbed payloads give the interpreter's exact result or error",
    async (_name, profile) => {
      const program = compiledOf(profile.expression);
      if (typeof program === "string") throw new Error(program);
      const interpret = interpreterOf(profile.expression);
      const payloads = payloadsOf(profile);
      const outcomes = { value: 0, error: 0, bailout: 0 };
      for (const payload of payloads) {
        const expected: Result = await interpret(payload);
        const actual = runCompiled(program, payload);
        if ("bailout" in actual) {
          // Handed to the interpreter (an object built over an empty list, which JSONata does by mutating the
          // payload): the evaluator-level test below shows the outcome is still the interpreter's.
          outcomes.bailout++;
          continue;
        }
        expect({ payload, ...actual }).toEqual({ payload, ...expected });
        outcomes["value" in actual ? "value" : "error"]++;
      }
      expect(outcomes.value).toBeGreaterThan(payloads.length / 4);
      expect(outcomes.bailout).toBeLessThan(payloads.length / 50);
    },
  );

  it.each(compiledProfiles.map((p) => [p.name, p] as const))(
    "%s: the evaluator's outcomes (body, validation error with its source path, mapping error with its position) are the interpreter's",
    async (_name, profile) => {
      const divergences: string[] = [];
      const compiled = new Evaluator(undefined, {
        checkedEvaluations: 0,
        onDivergence: (_versionId, divergence) => divergences.push(divergence.reason),
      });
      const interpreted = new Evaluator(undefined, { compiler: false });
      let id = 0;
      for (const payload of payloadsOf(profile)) {
        const request: EvaluateRequest = {
          id: id++,
          versionId: profile.versionId,
          kind: profile.kind,
          expression: profile.expression,
          payload,
          timeoutMs: 5_000,
        };
        // `trusted` says which path answered (the engine's cue to map inline), not what: left out of the comparison.
        const { elapsedMs: _a, trusted: _t, ...fast } = await compiled.evaluate(structuredClone(request));
        const { elapsedMs: _b, ...slow } = await interpreted.evaluate(structuredClone(request));
        expect(fast).toEqual(slow);
      }
      expect(compiled.compiledPath(profile.versionId)).toBe(true);
      expect(divergences).toEqual([]);
    },
  );
});

describe("field-name paths, evaluated by lookups until a step meets an array, agree with JSONata's interpreter", () => {
  // Every shape a step of `a.b.c` can meet: an object, a list (of objects, of lists, empty), null, a primitive, nothing.
  const leaf = (depth: number): Json[] => {
    if (depth === 0) return [1, "x", null, true, [], [1, 2], [[1], [2]], { c: 1 }];
    const below = leaf(depth - 1);
    const key = depth === 2 ? "b" : "c";
    return [
      ...below.slice(0, 3).map((value) => ({ [key]: value })),
      ...below.slice(0, 3).map((value) => [{ [key]: value }, { [key]: value }]),
      [],
      { other: 1 },
      "text",
      null,
    ];
  };
  const documents: Json[] = [...leaf(2).map((value) => ({ a: value })), [], [{ a: { b: { c: 1 } } }], "x", {}];
  const expressions = [
    "a",
    "a.b",
    "a.b.c",
    "a.b.c.d",
    "( $x := a; $x.b.c )",
    "( $x := a.b; $x.c )",
    "$.a.b",
    "a.b[]",
    "a.b.c[0]",
    "a.b.c[]",
    '{"v": a.b.c, "w": [a.b]}',
    "$count(a.b.c)",
    "a.b.c = 1",
  ];

  it.each(expressions)("%s", async (expression) => {
    const program = compiledOf(expression);
    if (typeof program === "string") throw new Error(`not compiled: ${program}`);
    const interpreted = interpreterOf(expression);
    for (const document of documents) {
      const actual = runCompiled(program, document);
      const expected = await interpreted(document);
      expect({ document, ...actual }).toEqual({ document, ...expected });
    }
  });
});

describe("records and $parseJson: the compiled path's values and outcomes are the interpreter's (D-300, D-302)", () => {
  const lead = '{"fullName": n, "email": m, "phone": "5125550123", "address": "1 Main St"}';
  const expressions = [
    `[{"kind": "lead", "id": ref, "body": ${lead}}, slot ? {"kind": "appointment", "body": {"startsAt": slot.s, "endsAt": slot.e, "idempotencyKey": "k-" & ref}}]`,
    `items.{"kind": kind, "id": ref, "body": ${lead}}`,
    `[items.{"kind": "lead", "body": ${lead}}]`,
    `items[0].{"kind": "lead", "test": t = "yes" ? true, "action": a, "body": ${lead}}`,
    '{"kind": "lead", "body": $parseJson(raw)}',
    "$parseJson(raw)",
    "$parseJson(raw).records",
    "[$parseJson(raw)]",
    "$parseJson(raw)[0]",
    "$parseJson(raw).a.b",
    "( $doc := $parseJson(raw); $doc.records[kind = 'lead'] )",
  ];
  const record = (n: string, m: string) => ({ kind: "lead", body: { fullName: n, email: m, phone: "5125550123" } });
  const item = (ref: string, m = "a@b.co") => ({ ref, kind: "lead", n: `N ${ref}`, m, t: "yes", a: "cancel" });
  const slot = { s: "2026-12-01T15:00:00.000Z", e: "2026-12-01T16:00:00.000Z" };
  const documents: Json[] = [
    { ref: "r1", n: "Ann", m: "a@b.co" },
    { ref: "r1", n: "Ann", m: "a@b.co", slot },
    { ref: "r1", n: "Ann", m: "nope", slot: { ...slot, e: slot.s } },
    { items: [] },
    { items: [item("a")] },
    { items: [item("a"), item("b", "bad")] },
    { items: [item("a"), [item("b")]] },
    { items: { ...item("c"), kind: "appointment" } },
    { raw: JSON.stringify({ records: [record("A", "a@b.co"), record("B", "b@c.co")] }) },
    { raw: JSON.stringify({ records: record("A", "a@b.co") }) },
    { raw: JSON.stringify([record("A", "a@b.co")]) },
    { raw: JSON.stringify([[1, 2], [3]]) },
    { raw: JSON.stringify({ a: [{ b: 1 }, { b: [2, 3] }] }) },
    { raw: JSON.stringify({ fullName: "A", email: "a@b.co", phone: "5125550123", address: "1 Main St" }) },
    { raw: "42" },
    { raw: "null" },
    { raw: "  " },
    { raw: "{not json" },
    { raw: 42 },
    { raw: [JSON.stringify({ a: { b: 1 } })] },
    {},
  ];

  it.each(expressions)("%s", async (expression) => {
    const program = compiledOf(expression);
    if (typeof program === "string") throw new Error(`not compiled: ${program}`);
    const interpreted = interpreterOf(expression);
    for (const document of documents) {
      const actual = runCompiled(program, document);
      const expected = await interpreted(document);
      expect({ document, ...actual }).toEqual({ document, ...expected });
    }
  });

  it("the evaluators' outcomes (records, validation errors naming records[i], mapping errors) are the same", async () => {
    const divergences: string[] = [];
    const compiled = new Evaluator(undefined, {
      checkedEvaluations: 0,
      onDivergence: (_versionId, divergence) => divergences.push(divergence.reason),
    });
    const interpreted = new Evaluator(undefined, { compiler: false });
    const seen = new Set<string>();
    let id = 0;
    for (const [index, expression] of expressions.entries()) {
      for (const document of documents) {
        const request: EvaluateRequest = {
          id: id++,
          versionId: `records-${index}`,
          kind: "lead",
          expression,
          payload: document,
          timeoutMs: 5_000,
        };
        const { elapsedMs: _a, trusted: _t, ...fast } = await compiled.evaluate(structuredClone(request));
        const { elapsedMs: _b, ...slow } = await interpreted.evaluate(structuredClone(request));
        expect({ expression, document, ...fast }).toEqual({ expression, document, ...slow });
        seen.add(fast.ok ? ("records" in fast ? "records" : "body") : fast.kind);
      }
      expect(compiled.compiledPath(`records-${index}`), expression).toBe(true);
    }
    // Each kind of outcome was met, so the comparison above compared them all.
    expect([...seen].sort()).toEqual(["body", "mapping", "records", "validation"]);
    expect(divergences).toEqual([]);
  });
});
