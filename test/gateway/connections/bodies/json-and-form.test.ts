import { describe, expect, it } from "vitest";
import { parseHookBody } from "../../../../src/gateway/connections/bodies/index.js";
import { form, refusal, text } from "./fixtures.js";

const JSON_TYPE = "application/json";
const FORM = "application/x-www-form-urlencoded";

describe("docs/connections.md, Bodies: JSON as intake parses it (D-280, D-164)", () => {
  it("is the parsed value: numbers, booleans and null stay what JSON says", async () => {
    const body = text('{"id":7,"ok":true,"none":null,"tags":["a",1.5],"nested":{"a":{"b":"c"}}}');
    expect(await parseHookBody(body, JSON_TYPE)).toEqual({
      id: 7,
      ok: true,
      none: null,
      tags: ["a", 1.5],
      nested: { a: { b: "c" } },
    });
  });

  it("any JSON value is a tree, not only an object", async () => {
    expect(await parseHookBody(text('["a"]'), JSON_TYPE)).toEqual(["a"]);
    expect(await parseHookBody(text('"a"'), JSON_TYPE)).toBe("a");
  });

  it("a key named __proto__ is an own key, as JSON.parse makes it", async () => {
    const tree = (await parseHookBody(text('{"__proto__":{"polluted":true}}'), JSON_TYPE)) as object;
    expect(Object.keys(tree)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(tree)).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("nests 64 levels, and refuses 65 with 400 too_deep before parsing", async () => {
    const nested = (depth: number) => text(`${"[".repeat(depth)}${"]".repeat(depth)}`);
    expect(await parseHookBody(nested(64), JSON_TYPE)).toBeInstanceOf(Array);
    const error = await refusal(nested(65), JSON_TYPE);
    expect([error.code, error.status, error.details]).toEqual(["too_deep", 400, { maxDepth: 64 }]);
    // 300,000 levels: refused on the bytes, where JSON.parse would have built them.
    expect((await refusal(nested(300_000), JSON_TYPE)).code).toBe("too_deep");
  });

  it.each([
    ["empty", ""],
    ["cut short", '{"name":"Ad'],
    ["not JSON", "name=Ada"],
    ["two values", '{"a":1}{"b":2}'],
    ["a trailing comma", '{"a":1,}'],
  ])("a body %s is refused with 400 malformed_body", async (_what, body) => {
    const error = await refusal(text(body), JSON_TYPE);
    expect([error.code, error.status]).toEqual(["malformed_body", 400]);
  });
});

describe("docs/connections.md, Bodies: form-urlencoded (D-280)", () => {
  it("is {name: value}, every value a string, nothing coerced", async () => {
    const body = form([
      ["firstName", "Ada"],
      ["appointmentId", "007"],
      ["paid", "true"],
      ["price", "1e3"],
    ]);
    expect(await parseHookBody(body, FORM)).toEqual({
      firstName: "Ada",
      appointmentId: "007",
      paid: "true",
      price: "1e3",
    });
  });

  it("a name repeated is an array of its values in order", async () => {
    expect(await parseHookBody(text("a=1&b=x&a=2&a=3"), FORM)).toEqual({ a: ["1", "2", "3"], b: "x" });
  });

  it("names are kept literally: a[b] is the key a[b], not nesting", async () => {
    expect(await parseHookBody(text("field[1]=x&a%5Bb%5D=y&a.b=z"), FORM)).toEqual({
      "field[1]": "x",
      "a[b]": "y",
      "a.b": "z",
    });
  });

  it("decodes as URLSearchParams does: + is a space, a broken escape stays as written", async () => {
    expect(await parseHookBody(text("full+name=Ada+L%20King&pct=100%&bad=%zz&plus=%2B"), FORM)).toEqual({
      "full name": "Ada L King",
      pct: "100%",
      bad: "%zz",
      plus: "+",
    });
  });

  it("a pair without = is a name with an empty value; empty pairs are skipped", async () => {
    expect(await parseHookBody(text("a&&b=&=c"), FORM)).toEqual({ a: "", b: "", "": "c" });
  });

  it("a leading ? is part of the first name (a form body is not a query string)", async () => {
    expect(await parseHookBody(text("?a=1"), FORM)).toEqual({ "?a": "1" });
  });

  it("an empty body is an empty form", async () => {
    expect(await parseHookBody(Buffer.alloc(0), FORM)).toEqual({});
  });

  it("a field named __proto__ is an own key, and pollutes nothing", async () => {
    const tree = (await parseHookBody(text("__proto__=x&constructor=y&toString=z"), FORM)) as object;
    expect(Object.keys(tree)).toEqual(["__proto__", "constructor", "toString"]);
    expect(Object.getOwnPropertyDescriptor(tree, "__proto__")?.value).toBe("x");
    expect(Object.getPrototypeOf(tree)).toBe(Object.prototype);
  });

  it("takes 1,000 fields and refuses 1,001 with 413 too_many_fields (D-283)", async () => {
    const fields = (count: number) => text(Array.from({ length: count }, (_, i) => `f${i % 10}=${i}`).join("&"));
    const tree = (await parseHookBody(fields(1_000), FORM)) as Record<string, string[]>;
    expect(tree.f0).toHaveLength(100);
    const error = await refusal(fields(1_001), FORM);
    expect([error.code, error.status, error.details]).toEqual(["too_many_fields", 413, { maxFields: 1_000 }]);
  });
});
