import { describe, expect, it } from "vitest";
import { compileProfile, MAX_EXPRESSION_LENGTH } from "../../../src/gateway/profiles/index.js";
import { lineColumn } from "../../../src/gateway/profiles/position.js";

describe("compile: saving a version checks its syntax (docs/profiles.md)", () => {
  it("accepts a valid expression", () => {
    expect(compileProfile('{ "fullName": $joinName(first, last), "email": $normalizeEmail(email) }')).toEqual({
      ok: true,
    });
  });

  it("reports JSONata's message, its character position, and the line and column of that position", () => {
    const expression = '{\n  "fullName": name\n  "email": email\n}';
    const result = compileProfile(expression);
    expect(result).toEqual({
      ok: false,
      error: { message: 'Expected "}", got "email"', position: 30, line: 3, column: 9 },
    });
  });

  it("points at the end of the expression when it stops too early", () => {
    const result = compileProfile('{\n  "a": $phoneE164(phone');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ line: 2, column: 23 });
    expect(result.error.message).toMatch(/Expected "\)"/);
  });

  it("refuses an expression longer than the limit", () => {
    const result = compileProfile(`"${"x".repeat(MAX_EXPRESSION_LENGTH)}"`);
    expect(result).toEqual({ ok: false, error: { message: expect.stringMatching(/longer than/) } });
  });

  it("refuses thousands of nested parentheses with a message instead of crashing", () => {
    const result = compileProfile(`${"(".repeat(20_000)}1${")".repeat(20_000)}`);
    expect(result.ok).toBe(false);
  });
});

describe("compile: regular expressions must run in linear time (docs/profiles.md, guardrails)", () => {
  it("accepts the patterns RE2 supports, flags included", () => {
    expect(compileProfile('$replace(phone, /[^0-9+]/, "") & $match(name, /^(\\w+)\\s+(\\w+)$/i).match')).toEqual({
      ok: true,
    });
  });

  it.each([
    ["a backreference", "/(a)\\1/"],
    ["a lookahead", "/a(?=b)/"],
    ["a negative lookbehind", "/(?<!x)y/"],
  ])("refuses %s when the version is saved, with its line and column", (_name, regex) => {
    const result = compileProfile(`{\n  "x": $match(s, ${regex})\n}`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toMatch(/not supported by the linear-time regex engine/);
    expect(result.error.line).toBe(2);
  });
});

describe("lineColumn", () => {
  it("counts lines from 1 and columns from 1 within the line", () => {
    expect(lineColumn("ab\ncd", 1)).toEqual({ line: 1, column: 1 });
    expect(lineColumn("ab\ncd", 4)).toEqual({ line: 2, column: 1 });
    expect(lineColumn("ab\ncd", 5)).toEqual({ line: 2, column: 2 });
  });

  it("clamps a position past the end to the end", () => {
    expect(lineColumn("ab", 99)).toEqual({ line: 1, column: 3 });
  });
});
