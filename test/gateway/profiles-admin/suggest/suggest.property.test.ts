import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileProfile, MAX_EXPRESSION_LENGTH } from "../../../../src/gateway/profiles/compile.js";
import { suggestProfile } from "../../../../src/gateway/profiles-admin/suggest/index.js";

/** Keys vendors and attackers send: JSONata's operators and quotes, comment marks, reserved words, numbers, blanks. */
const key = fc.oneof(
  fc.constantFrom(
    "email",
    "first_name",
    "Phone",
    "zip",
    "name",
    "value",
    "id",
    "start",
    "tz",
    "and",
    "4.1",
    "",
    "`",
    "a*/b",
    "@kind",
    "#text",
    "x.y",
    "$",
    '"q"',
    "__proto__",
  ),
  fc.string({ maxLength: 12 }),
);
const scalar = fc.oneof(
  fc.constantFrom(
    "ann@example.com",
    "(512) 555-0100",
    "12 Oak St",
    "Austin",
    "TX",
    "78701",
    "2026-05-01T10:00:00Z",
    "yes",
    "America/Chicago",
    '{"a":1}',
    "{not json",
    "Nguyen, Linh",
  ),
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const { payload } = fc.letrec((tie) => ({
  payload: fc.dictionary(key, tie("value"), { maxKeys: 6 }),
  value: fc.oneof({ depthSize: "small" }, scalar, tie("payload"), fc.array(tie("value"), { maxLength: 4 })),
}));

/**
 * docs/profiles.md, "Suggested profiles": whatever the payloads, a suggestion is made (never an exception), its
 * expression compiles and stays within a profile's length, and every canonical field is either mapped or missing.
 */
describe("suggestions from arbitrary payloads", () => {
  it("always answer a compiling expression and account for every canonical field", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("lead", "appointment"),
        fc.array(payload, { minLength: 1, maxLength: 4 }),
        (kind, payloads) => {
          const suggestion = suggestProfile({ kind: kind as "lead" | "appointment", payloads });
          expect(compileProfile(suggestion.expression)).toEqual({ ok: true });
          expect(suggestion.expression.length).toBeLessThan(MAX_EXPRESSION_LENGTH);
          const named = [...suggestion.fields.map((f) => f.field), ...suggestion.missing];
          const canonical = kind === "lead" ? 5 : 11;
          expect(new Set(named).size).toBe(canonical);
        },
      ),
      { numRuns: 300 },
    );
  });
});
