import { describe, expect, it } from "vitest";
import { compiledOf, interpreterOf, runCompiled } from "./compiler-harness.js";

/**
 * Each construct of the compiled subset (docs/profiles.md, "Compiled expressions") against JSONata 2.2.2 itself: for
 * every document below, the compiled result is the interpreter's (value, sequence flags and all), or the same error
 * code. A bailout — the compiled path handing one evaluation to the interpreter — is allowed only where a case says so.
 */
const DOC = {
  name: "Ann Lee",
  first: "  Ann \t ",
  last: "Lee",
  age: 42,
  score: 3.5,
  zero: 0,
  empty: "",
  nil: null,
  yes: true,
  no: false,
  numText: "42",
  tags: ["a", "b", "c"],
  one: ["solo"],
  none: [],
  nums: [3, 1, 2],
  nested: [
    [1, 2],
    [3, [4, 5]],
  ],
  contact: {
    email: " A.Lee@Example.COM ",
    phones: [
      { type: "home", number: "512-555-0111" },
      { type: "mobile", number: "(512) 555-0122" },
      { type: "mobile", number: "512 555 0133" },
    ],
  },
  items: [
    { k: "x", v: 1 },
    { k: "y", v: 2 },
    { k: "x", v: 3 },
  ],
  obj: { a: 1 },
  emptyObj: {},
  fake: { _jsonata_function: true, implementation: "data, not code" },
  dupA: "same",
  dupB: "same",
};

const INPUTS: Record<string, unknown> = {
  document: DOC,
  "array document": [DOC, { name: "Bo", tags: "t", items: { k: "z", v: 9 } }],
  "empty object": {},
  "nested arrays": [[{ name: "a", v: 1 }], [{ name: "b", v: 2 }, [{ name: "c", v: 3 }]]],
  string: "text",
  number: 7,
  null: null,
};

interface Case {
  expression: string;
  /** Inputs on which the compiled path may hand over to the interpreter (a type a built-in rejects, …). */
  mayBail?: string[];
}

const c = (expression: string, ...mayBail: string[]): Case => ({ expression, mayBail });
/** Documents where `name` is several values: a string function's signature rejects them (T0410). */
const SEVERAL_NAMES = ["array document", "nested arrays"];

const CASES: Record<string, Case[]> = {
  "paths and names": [
    c("name"),
    c("contact.email"),
    c("contact.phones.number"),
    c("contact.phones.type[1]"),
    c("contact.`phones`.number"),
    c("tags"),
    c("one"),
    c("none"),
    c("nested"),
    c("nested.$"),
    c("items.k"),
    c("missing.field"),
    c("$.name"),
    c("$$.name"),
    c("$"),
    c("$$"),
    c("items.v.$"),
  ],
  "predicates: numeric index, negative index, filters": [
    c("contact.phones[0].number"),
    c("contact.phones[-1].number"),
    c("contact.phones[1.7].number"),
    c("contact.phones[-5]"),
    c("contact.phones[99]"),
    c("contact.phones[[0, 2]].number"),
    c('contact.phones[type = "mobile"].number'),
    c('contact.phones[type = "mobile"][0].number'),
    c('contact.phones[type = "mobile"].number[0]'),
    c('(contact.phones[type = "mobile"].number)[0]'),
    c("tags[0]"),
    c("tags[-1]"),
    c("nested[0]"),
    c("nested[1][1]"),
    c("items[v > 1].k"),
    c('items[k = "x"]'),
    c("items[0][0]"),
    c("items[true]"),
    c("items[v]"),
    c('items["k"]'),
    c("nums[$ > 1]"),
    c("[1, 2, 3][1]"),
    c('"text"[0]'),
  ],
  "keeping singleton arrays: []": [
    c("tags[]"),
    c("one[]"),
    c("none[]"),
    c("missing[]"),
    c('items[k = "x"].v[]'),
    c('items[k = "y"].v[]'),
    c("contact.phones[0].number[]"),
    c("( $t := one[]; $t )"),
  ],
  literals: [c('"literal"'), c("3.25"), c("-7"), c("true"), c("null")],
  arithmetic: [
    c("age + 1"),
    c("age - score * 2"),
    c("age / 0"),
    c("age % 5"),
    c("-age"),
    c("-name"),
    c("name + 1"),
    c("1 + name"),
    c("missing + 1"),
    c("1/0 + 1"),
    c("nums + 1"),
  ],
  comparison: [
    c("age > 40"),
    c('name < "B"'),
    c('age < "50"'),
    c("obj < 1"),
    c("missing <= 3"),
    c("age = 42"),
    c('obj = {"a": 1}'),
    c('tags = ["a", "b", "c"]'),
    c('tags != ["a"]'),
    c("nil = null"),
    c("missing = missing"),
    c("obj = tags", "document", "array document"),
  ],
  "string concatenation: &": [
    c('name & "!"'),
    c('age & ""'),
    c('score & "/" & zero'),
    c('tags & ""'),
    c("obj & nil"),
    c("missing & missing"),
    c('0.1 + 0.2 & ""'),
    c('$ & ""'),
  ],
  "and, or, in, conditions": [
    c("yes and no"),
    c("yes or missing"),
    c("empty or zero"),
    c("tags and obj"),
    c("none or emptyObj"),
    c('"b" in tags'),
    c('"z" in tags'),
    c('name in "Ann Lee"'),
    c("missing in tags"),
    c('age > 18 ? "adult" : "minor"'),
    c("missing ? 1 : 2"),
    c("no ? 1"),
  ],
  "blocks and variables": [
    c("( $a := age; $b := $a * 2; $b + 1 )"),
    c("( $a := 1; ( $a := 2; $a ) + $a )"),
    c("( $a := 1; $a := $a + 1; $a )"),
    c('( $p := contact.phones; $p[type = "home"].number )'),
    c("( $x := tags; $x[1] )"),
    c('( $m := contact.phones[type = "mobile"].number; $m[0] )'),
    c("()"),
    c("( $d := $$; $d.name )"),
    c("items.( $w := v * 10; $w + 1 )"),
  ],
  "array constructors": [
    c("[name, age]"),
    c("[tags, one]"),
    c("[[tags], [one]]"),
    c("[missing, name]"),
    c("[]"),
    c("[contact.phones.number]"),
    c("[tags, one].$"),
    c("tags.[$]"),
    c("items.[k, v]"),
  ],
  "object constructors and grouping": [
    c('{"n": name, "a": age}'),
    c('{"n": missing}'),
    c("{name: age}"),
    c("items.{k: v}"),
    c('{"list": items.{ "key": k }}'),
    c('contact.{ "e": email, "p": phones.number }'),
    c('$.{"n": name}'),
    c("{dupA: 1, dupB: 2}"),
    c('{"a": 1, "a": 2}'),
    c('nested.{"x": $}'),
    c("nested.{$string($): $}"),
    c('items.{"all": $$.tags, "mine": k}'),
    c("{items.k: items.v}"),
    c("{age: 1}"),
    c('{"_jsonata_lambda": 1}'),
    c('{"a": 1}[0]'),
    c("{k: v}"),
    c('{"all": $}'),
    c('{"fake": fake, "inside": fake.implementation, "text": fake & "", "same": fake = fake, "in": [fake]}'),
    c("$boolean(fake)", "document", "array document"),
  ],
  "built-in functions": [
    c("$trim(first)"),
    c("$lowercase(name)", ...SEVERAL_NAMES),
    c("$uppercase(name)", ...SEVERAL_NAMES),
    c("$string(age)"),
    c("$string(score * 3.1)"),
    c("$string(obj)"),
    c("$string(tags)"),
    c("$string()"),
    c("$number(numText)"),
    c('$number("0x1F")'),
    c("$number(yes)"),
    c("$number(name)", ...SEVERAL_NAMES),
    c("$number(obj)", "document", "array document"),
    c("$boolean(empty)"),
    c("$boolean(tags)"),
    c("$not(zero)"),
    c("$exists(missing)"),
    c("$exists(nil)"),
    c("$count(tags)"),
    c("$count(name)"),
    c("$count(missing)"),
    c('$join(tags, ", ")'),
    c("$join(name)"),
    c("$join(nums)", "document", "array document"),
    c("$substring(name, 1, 3)", ...SEVERAL_NAMES),
    c("$substring(name, -3)", ...SEVERAL_NAMES),
    c("$substring(name, 2, 0)", ...SEVERAL_NAMES),
    c('$contains(name, "Lee")', ...SEVERAL_NAMES),
    c("$length(name)", ...SEVERAL_NAMES),
    c("name.$uppercase()"),
    c("tags.$uppercase()"),
    c("$trim()", ...Object.keys(INPUTS).filter((name) => name !== "string")),
    c("$lowercase(tags)", "document", "array document"),
  ],
  "lead-domain helpers": [
    c("$joinName(first, last)"),
    c("$normalizeEmail(contact.email)"),
    c('$phoneE164(contact.phones.number[0], "US")'),
    c('$default(missing, "x")'),
    c("$default(none, tags)"),
    c("$toBool(yes)"),
    c("$splitName(name).last"),
    c('$default(contact.phones[type = "mobile"].number, "none")[0]'),
    c("$joinAddress(tags, name, last, age)"),
    c('$default(fake, "x")', "document", "array document"),
  ],
};

const total = Object.values(CASES).reduce((sum, cases) => sum + cases.length, 0);

describe("compiled expressions agree with JSONata's interpreter", () => {
  it(`covers at least 80 expressions (${total})`, () => {
    expect(total).toBeGreaterThanOrEqual(80);
  });

  for (const [construct, cases] of Object.entries(CASES)) {
    describe(construct, () => {
      it.each(cases.map((item) => [item.expression, item] as const))("%s", async (_name, item) => {
        const program = compiledOf(item.expression);
        if (typeof program === "string") throw new Error(`not compiled: ${program}`);
        const interpret = interpreterOf(item.expression);
        for (const [inputName, input] of Object.entries(INPUTS)) {
          const expected = await interpret(input);
          const actual = runCompiled(program, input);
          if ("bailout" in actual && item.mayBail?.includes(inputName)) continue;
          expect({ input: inputName, ...actual }).toEqual({ input: inputName, ...expected });
        }
      });
    });
  }
});
