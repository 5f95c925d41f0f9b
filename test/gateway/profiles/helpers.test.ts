import { describe, expect, it } from "vitest";
import { Evaluator } from "../../../src/gateway/profiles/evaluator.js";
import { joinAddress } from "../../../src/gateway/profiles/helpers/address.js";
import { normalizeEmail } from "../../../src/gateway/profiles/helpers/email.js";
import { parseJson } from "../../../src/gateway/profiles/helpers/json.js";
import { localToUtc } from "../../../src/gateway/profiles/helpers/local-time.js";
import { joinName, splitName } from "../../../src/gateway/profiles/helpers/names.js";
import { phoneE164 } from "../../../src/gateway/profiles/helpers/phone.js";
import { tidy } from "../../../src/gateway/profiles/helpers/text.js";
import { defaultTo, toBool } from "../../../src/gateway/profiles/helpers/values.js";
import { LIMITS } from "../../../src/gateway/profiles/limits.js";
import { MAX_JSON_DEPTH } from "../../../src/http/json-depth.js";

describe("$phoneE164: phone normalisation (§2.7 phone)", () => {
  it.each([
    ["(512) 555-0123", "US", "+15125550123"],
    ["512.555.0123", undefined, "+15125550123"],
    ["1-512-555-0123", "US", "+15125550123"],
    ["+1 512 555 0123", "GB", "+15125550123"],
    ["011 44 20 7946 0958", "US", "+442079460958"],
    ["0049 30 1234567", "US", "+49301234567"],
    ["07700 900123", "GB", "+447700900123"],
    ["07700 900123", "uk", "+447700900123"],
    ["+44 (0)20 7946 0958", "GB", "+442079460958"],
    ["447700900123", "GB", "+447700900123"],
    ["030 1234567", "DE", "+49301234567"],
    ["06 12 34 56 78", "FR", "+33612345678"],
    ["06 1234 5678", "IT", "+390612345678"],
    ["(04) 1234 5678", "AU", "+61412345678"],
    ["512-555-0123 ext. 45", "US", "+15125550123"],
    ["512-555-0123 x45", "US", "+15125550123"],
    [5125550123, "US", "+15125550123"],
  ])("%s with country %s → %s", (input, country, expected) => {
    expect(phoneE164(input, country)).toBe(expected);
  });

  it("leaves a number it cannot place as its digits, keeping a leading +", () => {
    expect(phoneE164("555-0123", "US")).toBe("5550123");
    expect(phoneE164("123-456-7890", "US")).toBe("1234567890"); // area code cannot start with 1
    expect(phoneE164("+0 123", "US")).toBe("+0123");
    expect(phoneE164("2345678", "ZZ")).toBe("2345678");
  });

  it("leaves text without digits unchanged, so validation reports the vendor's value", () => {
    expect(phoneE164("  n/a ", "US")).toBe("n/a");
  });

  it("is undefined for a missing or blank value", () => {
    expect(phoneE164(undefined)).toBeUndefined();
    expect(phoneE164(null)).toBeUndefined();
    expect(phoneE164("   ")).toBeUndefined();
  });

  it("does not try to normalise text far longer than any phone number", () => {
    const long = `${"x ".repeat(5_000)}1`;
    expect(phoneE164(long)).toBe(long);
  });
});

describe("$normalizeEmail: email normalisation (§2.7 email)", () => {
  it("trims and lower-cases", () => {
    expect(normalizeEmail("  John.Smith@Example.COM ")).toBe("john.smith@example.com");
  });

  it("drops a mailto: prefix and a display name", () => {
    expect(normalizeEmail("MAILTO:a@b.co")).toBe("a@b.co");
    expect(normalizeEmail("Ann Lee <ANN@EXAMPLE.ORG>")).toBe("ann@example.org");
  });

  it("does not validate: a non-address comes back lower-cased for the schema to reject", () => {
    expect(normalizeEmail("Not An Email")).toBe("not an email");
  });

  it("is undefined for missing, blank or non-text values", () => {
    expect(normalizeEmail(undefined)).toBeUndefined();
    expect(normalizeEmail("  ")).toBeUndefined();
    expect(normalizeEmail({ a: 1 })).toBeUndefined();
  });
});

describe("$joinName and $splitName: names in one field or two (§2.7 fullName)", () => {
  it("joins the non-blank parts with single spaces", () => {
    expect(joinName(" Mary ", "  Ann ", "Lee")).toBe("Mary Ann Lee");
    expect(joinName("Cher", undefined)).toBe("Cher");
    expect(joinName(["Jean", "Luc"], "Picard")).toBe("Jean Luc Picard");
    expect(joinName("", null)).toBeUndefined();
  });

  it.each([
    ["John Smith", { first: "John", last: "Smith" }],
    ["  Mary   Ann  Lee ", { first: "Mary Ann", last: "Lee" }],
    ["Smith, John", { first: "John", last: "Smith" }],
    ["Martin Luther King Jr.", { first: "Martin Luther", last: "King Jr." }],
    ["John Smith, Jr.", { first: "John", last: "Smith Jr." }],
    ["Ludwig van Beethoven", { first: "Ludwig", last: "van Beethoven" }],
    ["Mary Ann de la Cruz", { first: "Mary Ann", last: "de la Cruz" }],
    ["Cher", { first: "Cher" }],
  ])("splits %j", (full, expected) => {
    expect(splitName(full)).toEqual(expected);
  });

  it("is undefined for a blank name", () => {
    expect(splitName("  ")).toBeUndefined();
  });
});

describe("tidy: the text every helper reads, trimmed with inner whitespace collapsed", () => {
  it("gives what collapsing every run of whitespace and trimming gives, on strings of every kind of space", () => {
    const pieces = ["a", "Bé", " ", "  ", "\t", "\n", "\u00a0", "\u2003", "\r\n", "x y"];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 5_000; i++) {
      let value = "";
      for (let n = next() % 7; n > 0; n--) value += pieces[next() % pieces.length];
      const plain = value.replace(/\s+/g, " ").trim();
      expect(tidy(value), JSON.stringify(value)).toBe(plain === "" ? undefined : plain);
    }
  });
});

describe("$joinAddress: §2.7 wants the full service address as one string", () => {
  it("joins street, city, state and zip, skipping blanks", () => {
    expect(joinAddress("12 Oak St", "Austin", "TX", 78701)).toBe("12 Oak St, Austin, TX 78701");
    expect(joinAddress(["12 Oak St", "Apt 4", ""], "Austin", "", "78701")).toBe("12 Oak St, Apt 4, Austin, 78701");
    expect(joinAddress(undefined, "", undefined, undefined)).toBeUndefined();
  });
});

describe("$localToUtc: local time + IANA zone → ISO-8601 UTC with Z (§8 Time)", () => {
  it.each([
    ["2026-12-01 09:30", "America/Chicago", "2026-12-01T15:30:00.000Z"], // CST, UTC−6
    ["2026-07-01 09:30", "America/Chicago", "2026-07-01T14:30:00.000Z"], // CDT, UTC−5
    ["2026-07-01T09:30:15.250", "Europe/Berlin", "2026-07-01T07:30:15.250Z"],
    ["2026-01-15 9:05 pm", "Asia/Kolkata", "2026-01-15T15:35:00.000Z"], // UTC+5:30
    ["2026-01-15 12:00 am", "UTC", "2026-01-15T00:00:00.000Z"],
    ["2026-12-01", "Australia/Sydney", "2026-11-30T13:00:00.000Z"], // midnight, AEDT UTC+11
  ])("%s in %s → %s", (local, zone, expected) => {
    expect(localToUtc(local, zone)).toBe(expected);
  });

  it("moves a wall time that does not exist (clocks going forward) forward by the gap", () => {
    // 2026-03-08: New York skips 02:00–03:00; 02:30 is read as 03:30 EDT.
    expect(localToUtc("2026-03-08 02:30", "America/New_York")).toBe("2026-03-08T07:30:00.000Z");
  });

  it("reads a wall time that happens twice (clocks going back) as the earlier instant", () => {
    // 2026-11-01: New York repeats 01:00–02:00; the first 01:30 is EDT (UTC−4).
    expect(localToUtc("2026-11-01 01:30", "America/New_York")).toBe("2026-11-01T05:30:00.000Z");
  });

  it("converts a time that already carries an offset as written, whatever the zone", () => {
    expect(localToUtc("2026-12-01T09:30:00-06:00", "Europe/London")).toBe("2026-12-01T15:30:00.000Z");
    expect(localToUtc("2026-12-01T15:30:00Z", undefined)).toBe("2026-12-01T15:30:00.000Z");
  });

  it("refuses an unknown zone, an impossible date and free text, naming the problem", () => {
    expect(() => localToUtc("2026-12-01 09:30", "America/Houston")).toThrow(/unknown IANA time zone/);
    expect(() => localToUtc("2026-02-30 09:30", "UTC")).toThrow(/not a local date-time/);
    expect(() => localToUtc("2026-12-01 25:00", "UTC")).toThrow(/not a local date-time/);
    expect(() => localToUtc("tomorrow at nine", "UTC")).toThrow(/not a local date-time/);
    expect(() => localToUtc("2026-12-01 09:30", undefined)).toThrow(/time zone is required/);
  });

  it("is undefined for a missing time, so validation names the missing field", () => {
    expect(localToUtc(undefined, "UTC")).toBeUndefined();
  });
});

describe("$toBool and $default: yes/no answers and safe defaults", () => {
  it.each([
    [true, true],
    ["yes", true],
    [" Y ", true],
    ["TRUE", true],
    [1, true],
    ["1", true],
    ["on", true],
    [["yes"], true],
    [false, false],
    ["No", false],
    ["n", false],
    [0, false],
    ["0", false],
    ["", false],
    ["off", false],
  ])("%j → %j", (input, expected) => {
    expect(toBool(input)).toBe(expected);
  });

  it("leaves an unreadable answer undefined rather than guessing consent", () => {
    expect(toBool("maybe")).toBeUndefined();
    expect(toBool(2)).toBeUndefined();
    expect(toBool(null)).toBeUndefined();
    expect(toBool(["yes", "no"])).toBeUndefined();
  });

  it("$default replaces missing, null, blank and empty values only", () => {
    expect(defaultTo(undefined, "x")).toBe("x");
    expect(defaultTo(null, "x")).toBe("x");
    expect(defaultTo("  ", "x")).toBe("x");
    expect(defaultTo([], "x")).toBe("x");
    expect(defaultTo("a", "x")).toBe("a");
    expect(defaultTo(0, "x")).toBe(0);
    expect(defaultTo(false, "x")).toBe(false);
  });
});

describe("$parseJson: a JSON document inside a string field (docs/decisions.md D-302)", () => {
  it("decodes the document, whatever JSON it holds", () => {
    expect(parseJson('{"q3_name": {"first": "Ann"}, "list": [1, "2"]}')).toEqual({
      q3_name: { first: "Ann" },
      list: [1, "2"],
    });
    expect(parseJson("[1, 2]")).toEqual([1, 2]);
    expect(parseJson(" 42 ")).toBe(42);
    expect(parseJson('"text"')).toBe("text");
    expect(parseJson("null")).toBeNull();
  });

  it("is undefined for anything but text, and for blank text", () => {
    for (const value of [undefined, null, 42, true, ['{"a": 1}'], { a: 1 }, "", "   "]) {
      expect(parseJson(value), JSON.stringify(value)).toBeUndefined();
    }
  });

  it("refuses text that is not JSON, naming the helper", () => {
    expect(() => parseJson('{"a": 1')).toThrow(/^\$parseJson: the text is not valid JSON \(/);
    expect(() => parseJson("yes")).toThrow(/\$parseJson/);
  });

  it("holds the document to a request's limits: its length and its nesting", () => {
    const deepest = `${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`;
    expect(parseJson(deepest)).toBeInstanceOf(Array);
    expect(() => parseJson(`[${deepest}]`)).toThrow(
      `$parseJson: the JSON nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
    );
    const longest = JSON.stringify("x".repeat(LIMITS.parseJsonChars - 2));
    expect(parseJson(longest)).toHaveLength(LIMITS.parseJsonChars - 2);
    expect(() => parseJson(` ${longest}`)).toThrow(/over the 1000000 limit/);
  });
});

describe("helpers are bound into every profile", () => {
  const evaluator = new Evaluator();
  const evaluate = async (expression: string, payload: unknown = {}) =>
    evaluator.evaluate({ id: 1, versionId: expression, kind: "outbound", expression, payload, timeoutMs: 1_000 });

  it("by their documented names", async () => {
    const reply = await evaluate(
      `{
        "phone": $phoneE164(p, "US"), "email": $normalizeEmail(e), "full": $joinName(f, l),
        "split": $splitName("Lee, Ann"), "address": $joinAddress(s, c, st, z),
        "at": $localToUtc("2026-12-01 09:30", "America/Chicago"), "ok": $toBool("yes"), "d": $default(x, "fallback"),
        "answers": $parseJson(raw).q1
      }`,
      {
        ...{ p: "512 555 0123", e: " A@B.CO ", f: "Ann", l: "Lee", s: "1 Main St", c: "Austin", st: "TX", z: "78701" },
        raw: '{"q1": ["a", "b"]}',
      },
    );
    expect(reply).toMatchObject({
      ok: true,
      body: {
        phone: "+15125550123",
        email: "a@b.co",
        full: "Ann Lee",
        split: { first: "Ann", last: "Lee" },
        address: "1 Main St, Austin, TX 78701",
        at: "2026-12-01T15:30:00.000Z",
        ok: true,
        d: "fallback",
        answers: ["a", "b"],
      },
    });
  });

  it("a helper's complaint is a mapping error at the call's position", async () => {
    const reply = await evaluate('{"at": $localToUtc("soon", "UTC")}');
    expect(reply).toMatchObject({ ok: false, kind: "mapping", message: expect.stringMatching(/\$localToUtc/) });
    expect(reply.ok === false && reply.kind === "mapping" && reply.position).toBeGreaterThan(0);
  });

  it("$parseJson's complaint is a mapping error naming it, on the compiled path and the interpreter's alike", async () => {
    const expression = '{"answers": $parseJson(raw)}';
    for (const evaluator of [
      new Evaluator(undefined, { checkedEvaluations: 0 }),
      new Evaluator(undefined, { compiler: false }),
    ]) {
      const reply = await evaluator.evaluate({
        id: 1,
        versionId: "pj",
        kind: "outbound",
        expression,
        payload: { raw: "{x" },
        timeoutMs: 1_000,
      });
      expect(reply).toMatchObject({
        ok: false,
        kind: "mapping",
        position: 23,
        message: expect.stringMatching(/^\$parseJson: the text is not valid JSON/),
      });
      const good = await evaluator.evaluate({
        id: 2,
        versionId: "pj",
        kind: "outbound",
        expression,
        payload: { raw: '{"x": 1}' },
        timeoutMs: 1_000,
      });
      expect(good).toMatchObject({ ok: true, body: { answers: { x: 1 } } });
    }
  });

  it("$default(v, ()) leaves a key out, the idiom for a vendor's null on an optional field", async () => {
    expect(await evaluate('{"notes": $default(n, ()), "k": "v"}', { n: null })).toMatchObject({
      ok: true,
      body: { k: "v" },
    });
  });
});
