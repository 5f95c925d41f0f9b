import { describe, expect, it } from "vitest";
import { compileFast, type FastCompilation } from "../../../src/gateway/profiles/compiler/index.js";
import { Bailout } from "../../../src/gateway/profiles/compiler/runtime.js";
import { Evaluator } from "../../../src/gateway/profiles/evaluator.js";
import { judge } from "../../../src/gateway/profiles/golden.js";
import { HELPERS } from "../../../src/gateway/profiles/helpers/index.js";
import { loadProfileDir } from "../../../src/gateway/profiles/index.js";
import { LIMITS } from "../../../src/gateway/profiles/limits.js";
import { type Divergence, ProfileProgram } from "../../../src/gateway/profiles/program.js";
import type { EvaluateRequest } from "../../../src/gateway/profiles/protocol.js";
import type { MappingOutcome } from "../../../src/gateway/profiles/types.js";
import { compiledOf } from "./compiler-harness.js";

/** docs/profiles.md, "Compiled expressions": outside the subset, the whole expression is the interpreter's. */
const UNSUPPORTED: Record<string, string> = {
  "a lambda": "function($x) { $x + 1 }(2)",
  "a higher-order function": "$map(tags, function($v) { $uppercase($v) })",
  recursion: "( $f := function($n) { $n <= 1 ? 1 : $n * $f($n - 1) }; $f(5) )",
  "a regular expression": "$contains(name, /Ann/)",
  "function application ~>": "name ~> $uppercase()",
  "a range ..": "[1..3]",
  "order-by ^()": "items^(>v).k",
  "a sort function": "$sort(tags)",
  "a transform": '$ ~> |contact|{"seen": true}|',
  "the parent operator %": "items.%.name",
  "focus binding @": "items@$i.k",
  "index binding #": "items#$i.k",
  "group-by on a path": "items{k: v}",
  "a wildcard *": "contact.*",
  "descendants **": "**.number",
  "an unknown function": "$shout(name)",
  "a built-in outside the subset": "$sum(nums)",
  "$now, whose value changes per evaluation": "$now()",
  $eval: '$eval("1 + 1")',
  "a built-in with an argument count left to its signature": "$substring(name)",
  "$string's prettify": "$string(obj, true)",
  "a partial application": "$substring(?, 1)",
  "a function used as a value": "( $f := $uppercase; $f(name) )",
  "a variable no block binds": "$unbound",
  "a binding outside a block's statements": "$x := 1",
  "a binding inside a condition": "( age > 1 ? $x := 1 : 0; $x )",
  "nesting near the stack guardrail": `${"(".repeat(120)}1${")".repeat(120)}`,
};

describe("outside the compiled subset, the interpreter evaluates the whole expression", () => {
  it.each(Object.entries(UNSUPPORTED))("%s: %s", async (_construct, expression) => {
    expect(typeof compiledOf(expression)).toBe("string");
    const program = new ProfileProgram(expression);
    expect(program.compiled).toBe(false);
  });

  it("compiles the same expressions' supported neighbours, so the cases above are refused for their construct", () => {
    for (const expression of ['$contains(name, "Ann")', "$substring(name, 1)", "$string(obj)", "( $x := 1; $x )"]) {
      expect(typeof compiledOf(expression)).not.toBe("string");
    }
  });
});

const evaluate = (evaluator: Evaluator, request: Partial<EvaluateRequest> & { expression: string; payload: unknown }) =>
  evaluator.evaluate({ id: 1, versionId: request.expression, kind: "outbound", timeoutMs: 50, ...request });

describe("the guardrails still hold", () => {
  it("the runaway-retry-loop fixture takes the interpreter path, passes its samples, and is stopped at the time limit", async () => {
    const profile = await loadProfileDir("profiles/_attacks/runaway-retry-loop");
    const runaway = await import("../../../profiles/_attacks/runaway-retry-loop/payloads/runaway.json", {
      with: { type: "json" },
    });
    const evaluator = new Evaluator();
    const request = { versionId: profile.versionId, kind: profile.kind, expression: profile.expression };
    for (const sample of profile.samples) {
      const reply = await evaluate(evaluator, { ...request, payload: sample.payload });
      expect(judge(sample, { ...reply, elapsedMs: 0 } as MappingOutcome).passed).toBe(true);
    }
    expect(evaluator.compiledPath(profile.versionId)).toBe(false);
    const reply = await evaluate(evaluator, { ...request, payload: runaway.default });
    expect(reply).toMatchObject({ ok: false, kind: "guardrail", limit: "time" });
  });

  it("stops a compiled evaluation that runs past the time limit (a predicate walking $$ for every item)", async () => {
    const evaluator = new Evaluator();
    const items = Array.from({ length: 20_000 }, (_, i) => ({ k: `k${i}` }));
    const expression = '{"hits": $count(items[k in $$.items.k])}';
    const started = performance.now();
    const reply = await evaluate(evaluator, { expression, payload: { items }, timeoutMs: 50 });
    expect(reply).toMatchObject({ ok: false, kind: "guardrail", limit: "time" });
    expect(evaluator.compiledPath(expression)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("refuses a sequence longer than the limit, as the interpreter does", async () => {
    const divergences: Divergence[] = [];
    const evaluator = new Evaluator(undefined, { onDivergence: (_id, divergence) => divergences.push(divergence) });
    const items = Array.from({ length: LIMITS.sequenceLength + 1 }, (_, i) => ({ k: i }));
    const reply = await evaluate(evaluator, { expression: '{"ks": items.k}', payload: { items }, timeoutMs: 5_000 });
    expect(reply).toMatchObject({ ok: false, kind: "guardrail", limit: "sequence" });
    expect(divergences).toEqual([]);
    expect(evaluator.compiledPath('{"ks": items.k}')).toBe(true);
  });

  it("refuses a compiled body over the output limit", async () => {
    const evaluator = new Evaluator();
    const payload = { text: "x".repeat(LIMITS.outputChars) };
    const reply = await evaluate(evaluator, { expression: '{"a": text, "b": "!"}', payload, timeoutMs: 5_000 });
    expect(reply).toMatchObject({ ok: false, kind: "guardrail", limit: "output" });
    expect(evaluator.compiledPath('{"a": text, "b": "!"}')).toBe(true);
  });
});

/** A compiler whose program answers with `answer` (or throws it), in place of the real one. */
const fakeCompiler =
  (answer: (input: unknown, call: number) => unknown): ((ast: unknown) => FastCompilation) =>
  () => {
    let calls = 0;
    return { ok: true, program: { evaluate: (input) => answer(input, calls++) } };
  };

describe("the safety net: the interpreter checks the compiled path", () => {
  const expression = '{"n": name}';
  const payload = { name: "Ann" };
  const run = (program: ProfileProgram) => program.evaluate(payload, 50, performance.now() + 50);

  it("really is the compiler under test that the fake replaces", () => {
    expect(compileFast(new ProfileProgram(expression).interpreter.ast(), HELPERS).ok).toBe(true);
  });

  it("answers with the interpreter and pins the version when the compiled answer differs", async () => {
    const divergences: Divergence[] = [];
    const program = new ProfileProgram(expression, {
      compiler: fakeCompiler(() => ({ n: "wrong" })),
      onDivergence: (divergence) => divergences.push(divergence),
    });
    expect(program.compiled).toBe(true);
    expect(await run(program)).toEqual({ n: "Ann" });
    expect(program.compiled).toBe(false);
    // The reason only: the two answers are a vendor's mapped payload.
    expect(divergences).toEqual([{ reason: "the compiled path answered differently" }]);
  });

  it("redoes a compiled failure with the interpreter, and pins the version when the interpreter answers", async () => {
    const divergences: Divergence[] = [];
    const program = new ProfileProgram(expression, {
      compiler: fakeCompiler(() => {
        throw { code: "T2001" };
      }),
      onDivergence: (divergence) => divergences.push(divergence),
    });
    expect(await run(program)).toEqual({ n: "Ann" });
    expect(divergences.map((d) => d.reason)).toEqual(["the compiled path failed, the interpreter answered"]);
    expect(program.compiled).toBe(false);
  });

  it("gives JSONata's own error when both fail, and keeps the compiled path", async () => {
    const failing = "name + 1";
    const program = new ProfileProgram(failing, { onDivergence: () => expect.fail("no divergence") });
    await expect(program.evaluate(payload, 50, performance.now() + 50)).rejects.toMatchObject({
      code: "T2001",
      position: 6,
      message: 'The left side of the "+" operator must evaluate to a number',
    });
    expect(program.compiled).toBe(true);
  });

  it("hands a bailout to the interpreter without counting it against the version", async () => {
    const program = new ProfileProgram(expression, {
      compiler: fakeCompiler(() => {
        throw new Bailout("not this one");
      }),
      onDivergence: () => expect.fail("no divergence"),
    });
    expect(await run(program)).toEqual({ n: "Ann" });
    expect(program.compiled).toBe(true);
  });

  it("trusts the compiled path alone after the checked evaluations", async () => {
    const checked = 3;
    const program = new ProfileProgram(expression, {
      compiler: fakeCompiler((_input, call) => ({ n: call < checked ? "Ann" : "unchecked" })),
      checkedEvaluations: checked,
      onDivergence: () => expect.fail("no divergence"),
    });
    for (let i = 0; i < checked; i++) expect(await run(program)).toEqual({ n: "Ann" });
    expect(await run(program)).toEqual({ n: "unchecked" });
  });
});
