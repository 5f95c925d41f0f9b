import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Evaluator } from "../../../src/gateway/profiles/evaluator.js";
import {
  loadProfileDir,
  type MapInput,
  type MappingOutcome,
  ProfileEngine,
  runGoldenSamples,
} from "../../../src/gateway/profiles/index.js";

/**
 * Untrusted expressions must never hang, crash or slow the service for other tenants. Each attack is run
 * through the real worker pool; the suspect lane is turned off here (it has its own tests) so each attack meets the
 * guardrail itself.
 */
let engine: ProfileEngine;
beforeAll(async () => {
  // A small heap makes the out-of-memory attacks fail fast.
  engine = new ProfileEngine({ poolSize: 2, suspectForMs: 0, evaluatorHeapMb: 48 });
  await engine.ready();
});
afterAll(() => engine.close());

let counter = 0;
const map = (expression: string, payload: unknown = {}, timeoutMs?: number): Promise<MappingOutcome> =>
  engine.map(
    { versionId: `v${counter++}`, kind: "outbound", expression, payload },
    timeoutMs === undefined ? {} : { timeoutMs },
  );

const small: Omit<MapInput, "versionId"> = {
  kind: "lead",
  expression: '{"fullName": n, "email": e, "phone": $phoneE164(p), "address": a}',
  payload: { n: "Ann Lee", e: "ann@example.com", p: "512 555 0123", a: "1 Main St, Austin, TX 78701" },
};

describe("containment: JSONata's guardrails stop runaway expressions (time, stack, sequence)", () => {
  it("stops infinite recursion at the stack depth limit, quickly", async () => {
    const outcome = await map("($f := function($x) { 1 + $f($x) }; $f(1))");
    expect(outcome).toMatchObject({ ok: false, kind: "guardrail", limit: "stack" });
    expect(outcome.elapsedMs).toBeLessThan(1_000);
  });

  it("stops an endless tail-recursive loop (no stack growth) at the time limit", async () => {
    const outcome = await map("($spin := function($i) { $spin($i + 1) }; $spin(0))");
    expect(outcome).toMatchObject({ ok: false, kind: "guardrail", limit: "time" });
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(50);
  });

  it("refuses a huge range before allocating it", async () => {
    const outcome = await map("$count([1..100000000])");
    expect(outcome).toMatchObject({ ok: false, kind: "guardrail", limit: "sequence" });
    expect(outcome.elapsedMs).toBeLessThan(1_000);
  });

  it("refuses nested ranges whose product exceeds the sequence limit", async () => {
    expect(await map("$count([1..1000].([1..1000]))")).toMatchObject({ kind: "guardrail" });
  });

  it("stops deeply nested expressions at the stack depth limit", async () => {
    const nested = `${"[".repeat(2_000)}1${"]".repeat(2_000)}`;
    expect(await map(`{"a": ${nested}}`)).toMatchObject({ ok: false, kind: "guardrail", limit: "stack" });
  });

  it("refuses a payload nested too deeply to send to a worker, without harming the main thread", async () => {
    let deep: Record<string, unknown> = { x: 1 };
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(await map('{"n": $count(**.x)}', deep)).toMatchObject({ ok: false, kind: "guardrail", limit: "stack" });
  });
});

describe("containment: catastrophic regex runs in linear time", () => {
  it("answers /(a+)+$/ on a 40,000-character string promptly instead of backtracking for ever", async () => {
    const outcome = await map('{"hit": $contains(s, /(a+)+$/)}', { s: `${"a".repeat(40_000)}!` }, 1_000);
    expect(outcome).toMatchObject({ ok: true, body: { hit: false } });
  });
});

describe("containment: a worker that stops cooperating, or dies, is replaced and the gateway lives on", () => {
  it("kills an evaluation stuck in one native call past the hard deadline, and the next evaluation works", async () => {
    const restarts = engine.stats().pool.restarts;
    const started = performance.now();
    // $distinct compares every pair (90,000² steps) inside one function call: JSONata's timeout is never consulted.
    const outcome = await map('{"x": $count($distinct([1..90000]))}');
    expect(outcome).toMatchObject({ ok: false, kind: "guardrail", limit: "deadline" });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(engine.stats().pool.restarts).toBe(restarts + 1);
    expect(await engine.map({ versionId: "after-kill", ...small })).toMatchObject({ ok: true });
  });

  it.each([
    ["one huge string", '{"x": $pad("x", 200000000)}'],
    [
      "a string doubled 27 times, then serialised",
      '($f := function($s, $n) { $n = 0 ? $s : $f($s & $s, $n - 1) }; {"a": $f("ab", 27)})',
    ],
  ])(
    "survives %s blowing a worker's heap in one allocation (a worker thread would take the process down)",
    async (_name, expression) => {
      const outcome = await map(expression, {}, 2_000);
      expect(outcome).toMatchObject({ ok: false, kind: "guardrail", limit: "memory" });
      expect(await engine.map({ versionId: "after-oom", ...small })).toMatchObject({ ok: true });
    },
  );

  it("reports a string too long for V8 as a memory guardrail, without losing the worker", async () => {
    const restarts = engine.stats().pool.restarts;
    const outcome = await map('($f := function($s, $n) { $n = 0 ? $length($s) : $f($s & $s, $n - 1) }; $f("ab", 40))');
    expect(outcome).toMatchObject({ ok: false, kind: "guardrail", limit: "memory" });
    expect(engine.stats().pool.restarts).toBe(restarts);
  });
});

describe("containment: prototype access never reaches host objects", () => {
  const attacks = [
    "$$.constructor",
    "constructor.constructor",
    '$lookup($, "constructor")',
    "__proto__",
    "$$.__proto__.constructor",
    '$eval("constructor.constructor")',
    '$ ~> | $ | {"__proto__": {"polluted": "yes"}} |',
    '$merge([{}, {"__proto__": {"polluted": "yes"}}])',
    '{"__proto__": {"polluted": "yes"}}',
    '$ ~> | __proto__ | {"polluted": "yes"} |',
    "$spread($)",
  ];
  const payload = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}');

  it.each(attacks)(
    "%s gives plain data or a mapping error, and the worker maps correctly after it",
    async (expression) => {
      const outcome = await map(`{"result": ${expression}}`, payload);
      expect(outcome.ok || outcome.kind === "mapping").toBe(true);
      expect(await engine.map({ versionId: "after-attack", ...small })).toEqual({
        ok: true,
        body: {
          fullName: "Ann Lee",
          email: "ann@example.com",
          phone: "+15125550123",
          address: "1 Main St, Austin, TX 78701",
        },
        elapsedMs: expect.any(Number),
      });
    },
  );

  it.each(attacks)("%s pollutes nothing even in this realm (the evaluator, run in-process)", async (expression) => {
    const evaluator = new Evaluator();
    const reply = await evaluator.evaluate({
      id: 1,
      versionId: "x",
      kind: "outbound",
      expression: `{"result": ${expression}}`,
      payload: JSON.parse(JSON.stringify(payload)),
      timeoutMs: 1_000,
    });
    expect(reply.ok || reply.kind !== "guardrail").toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
  });

  it("hands back no callable value: a function in the output is dropped, so validation names the field", async () => {
    const outcome = await engine.map({
      ...small,
      versionId: "fn",
      expression: '{"fullName": $lookup, "x": function($a) { $a }}',
    });
    expect(outcome).toMatchObject({ ok: false, kind: "validation", field: "fullName" });
    expect(outcome.ok === false && outcome.kind === "validation" && outcome.output).toEqual({});
  });
});

describe("containment: a runaway evaluation does not slow other evaluations or the event loop", () => {
  it("keeps answering other evaluations, and the event loop, while a worker is stuck", async () => {
    await engine.ready(); // earlier tests killed workers: let their replacements load
    // Busy for its whole 300 + 100 ms deadline: anything that waited for it would take at least that long.
    let runawaySettled = false;
    const runaway = map('{"x": $count($distinct([1..90000]))}', {}, 300).finally(() => {
      runawaySettled = true;
    });
    let maxLag = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxLag = Math.max(maxLag, now - last - 5);
      last = now;
    }, 5);
    const latencies: number[] = [];
    for (let i = 0; i < 40; i++) {
      const started = performance.now();
      expect(await engine.map({ versionId: "bystander", ...small })).toMatchObject({ ok: true });
      latencies.push(performance.now() - started);
    }
    clearInterval(timer);
    expect(runawaySettled).toBe(false);
    expect(await runaway).toMatchObject({ ok: false, kind: "guardrail", limit: "deadline" });
    // Generous bounds (the test machine is shared), still well below the 400 ms a blocked caller would wait.
    expect(Math.max(...latencies)).toBeLessThan(200);
    expect(maxLag).toBeLessThan(200);
  });
});

describe("containment: a profile that passes its golden samples but runs away on real payloads", () => {
  it("passes its samples, then meets the time limit on the vendor's real payload while others still map", async () => {
    await engine.ready();
    const profile = await loadProfileDir("profiles/_attacks/runaway-retry-loop");
    expect((await runGoldenSamples(engine, profile)).passed).toBe(true);
    const real = { ...(profile.samples[0]?.payload as object), attempt: 1_767_225_600_000 };
    const [runaway, bystander] = await Promise.all([
      engine.map({ ...profile, payload: real }),
      engine.map({ versionId: "bystander-2", ...small }),
    ]);
    expect(runaway).toMatchObject({ ok: false, kind: "guardrail", limit: "time" });
    expect(bystander).toMatchObject({ ok: true });
    expect(bystander.elapsedMs).toBeLessThan(50);
  });
});
