import jsonata from "jsonata";
import { describe, expect, it } from "vitest";
import { Evaluator } from "../../../src/gateway/profiles/evaluator.js";
import { LIMITS } from "../../../src/gateway/profiles/limits.js";
import { LinearRegExp } from "../../../src/gateway/profiles/linear-regexp.js";

const native = (expression: string, input: unknown) => jsonata(expression).evaluate(input);
const linear = (expression: string, input: unknown) =>
  jsonata(expression, { RegexEngine: LinearRegExp as unknown as RegExpConstructor }).evaluate(input);

describe("regex engine: JSONata's regex functions behave as with native RegExp", () => {
  it.each([
    ["$match(s, /[0-9]+/)", "ab12cd345"],
    ["$match(s, /(\\w+)\\s+(\\w+)/)", "John Smith"],
    ["$match(s, /(?<year>\\d{4})-(\\d{2})/)", "on 2026-12 and 2027-01"],
    ["$match(s, /(a)|(b)/)", "b"],
    ['$replace(s, /\\s+/, " ")', "John   Smith \t Jr"],
    ['$replace(s, /(\\d{3})(\\d{4})/, "$1-$2")', "5550123"],
    ['$replace(s, /[^0-9]/, "")', "(512) 555-0123"],
    ["$split(s, /,\\s*/)", "a, b,c"],
    ["$contains(s, /HELLO/i)", "say hello"],
    ["$match(s, /^b/m)", "a\nb"],
    ["$match(s, /[0-9]+/)", "x😀y12"],
  ])("%s on %j", async (expression, s) => {
    expect(await linear(expression, { s })).toEqual(await native(expression, { s }));
  });
});

describe("regex engine: matching is linear in the input (docs/profiles.md: catastrophic regex)", () => {
  it("runs /(a+)+$/ on a long non-matching string in milliseconds, where RegExp takes exponential time", async () => {
    const s = `${"a".repeat(20_000)}!`;
    const started = performance.now();
    expect(await linear("$contains(s, /(a+)+$/)", { s })).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("costs RegExp itself exponential time on a fraction of that input (why the engine is replaced)", () => {
    const started = performance.now();
    expect(/(a+)+$/.test(`${"a".repeat(22)}!`)).toBe(false);
    // 2^22 backtracking paths for 23 characters; each added "a" doubles it.
    expect(performance.now() - started).toBeGreaterThan(10);
  });
});

describe("regex engine: guardrails inside the worker's evaluator", () => {
  const evaluator = new Evaluator();
  const evaluate = (expression: string, payload: unknown, timeoutMs = 50) =>
    evaluator.evaluate({ id: 1, versionId: expression, kind: "outbound", expression, payload, timeoutMs });

  it("stops a long run of matches when the evaluation's time is up (JSONata's own timeout cannot see it)", async () => {
    // The whole replace takes ~40 ms of CPU; its limit is 10 ms. On a loaded machine the evaluator's thread may get
    // under a twentieth of those 10 ms and the answer is "starved" (overload, not a runaway); the engine then tries
    // again (engine.ts), and so does this test.
    const s = "a".repeat(LIMITS.regexInputChars);
    // Compiled first on a short input, with time to spare: on a loaded machine the compile alone passed the 10 ms, and
    // JSONata's own check stopped the evaluation before the replace began.
    expect(await evaluate('{"x": $replace(s, /a/, "b")}', { s: "aa" }, 1_000)).toMatchObject({ ok: true });
    let reply = await evaluate('{"x": $replace(s, /a/, "b")}', { s }, 10);
    for (let tries = 1; tries < 5 && !reply.ok && reply.kind === "starved"; tries++) {
      reply = await evaluate('{"x": $replace(s, /a/, "b")}', { s }, 10);
    }
    expect(reply).toMatchObject({ ok: false, kind: "guardrail", limit: "time" });
    expect(reply).toMatchObject({ message: expect.stringContaining("regular expression") });
  });

  it("refuses to scan a string longer than the regex input limit", async () => {
    const reply = await evaluate('{"x": $contains(s, /b/)}', { s: "a".repeat(LIMITS.regexInputChars + 1) });
    expect(reply).toMatchObject({ ok: false, kind: "guardrail", limit: "regex" });
  });

  it("refuses, at run time, a pattern RE2 cannot run that slipped past the save-time check through $eval", async () => {
    const reply = await evaluate('{"x": $eval("$match(\\"aa\\", /(a)\\\\1/)")}', {});
    expect(reply).toMatchObject({ ok: false, kind: "guardrail", limit: "regex" });
  });
});
