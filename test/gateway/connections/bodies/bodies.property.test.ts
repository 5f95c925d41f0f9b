import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  HOOK_BODY_CODES,
  HookBodyError,
  type HookBodyLimits,
  type JsonValue,
  parseHookBody,
} from "../../../../src/gateway/connections/bodies/index.js";
import { anyBodies, contentTypes, limits, typedBodies } from "./arbitraries.js";
import { BOUNDARY, form, grouped, MULTIPART, multipart, text, xmlAttribute, xmlText } from "./fixtures.js";

/**
 * docs/connections.md, "Bodies": whatever a vendor posts, parseHookBody gives a JSON tree or a HookBodyError with a
 * code of the closed list and a 4xx status — never anything else, so the hook route never answers 5xx for a body
 * (the "0 × 5xx" property of docs/decisions.md, "Bounded input", D-169, carried to hooks). Then, for the three types
 * that are not JSON, a flat record written as the vendor writes it parses back to the tree the conventions promise.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);

/** What any body may come to: a JSON tree (strings only, but for JSON), or the typed refusal. */
async function settle(body: Uint8Array, contentType: string | undefined, bounds?: Partial<HookBodyLimits>) {
  try {
    const tree = await parseHookBody(body, contentType, bounds);
    const json = /json/i.test(contentType ?? "");
    expect(jsonTree(tree, json), JSON.stringify(tree)).toBe(true);
    // Serialisable, and stable once serialised (-0 and 1e400 are written as 0 and null, as for any JSON payload).
    const serialised = JSON.stringify(tree);
    expect(JSON.stringify(JSON.parse(serialised))).toBe(serialised);
    return "tree";
  } catch (error) {
    expect(error).toBeInstanceOf(HookBodyError);
    const { code, status } = error as HookBodyError;
    expect(HOOK_BODY_CODES).toContain(code);
    expect([400, 413, 415]).toContain(status);
    return code;
  }
}

/** A tree of plain objects, arrays and scalars; outside JSON bodies, every scalar a string (nothing coerced). */
function jsonTree(value: unknown, json: boolean): boolean {
  if (typeof value === "string") return true;
  if (json && (value === null || typeof value === "number" || typeof value === "boolean")) return true;
  if (Array.isArray(value)) return value.every((item) => jsonTree(item, json));
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every((item) => jsonTree(item, json));
}

describe("docs/connections.md, Bodies: no body makes anything but a tree or a typed refusal (D-284)", () => {
  it(`${RUNS} arbitrary bodies under arbitrary content types`, async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(anyBodies, contentTypes, limits, async (body, contentType, bounds) => {
        seen.add(await settle(body, contentType, bounds));
      }),
      { numRuns: RUNS },
    );
    // Both sides were reached: some bodies parsed, some were refused for their type.
    expect(seen).toContain("tree");
    expect(seen).toContain("unsupported_media_type");
  });

  it(`${RUNS} documents of each type, hostile, cut short or corrupted, under their own content type`, async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(typedBodies, limits, async ([body, contentType], bounds) => {
        seen.add(await settle(body, contentType, bounds));
      }),
      { numRuns: RUNS },
    );
    // Every parser was driven both ways.
    for (const outcome of ["tree", "malformed_body", "xml_dtd_refused", "file_part_refused", "too_deep"]) {
      expect(seen).toContain(outcome);
    }
  });
});

/** Names and values as vendors' forms carry them, prototype-named keys included. */
const fieldName = fc.oneof(
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.constantFrom("__proto__", "a[b]", "toString"),
);
const fieldValue = fc.string({ unit: "binary", maxLength: 40 });
const pairs = (name: fc.Arbitrary<string>, value: fc.Arbitrary<string>) =>
  fc.array(fc.tuple(name, value), { maxLength: 12 });

describe("docs/connections.md, Bodies: a flat record round-trips through each type (D-280, D-282)", () => {
  it("form-urlencoded: percent-encoded pairs parse back to {name: value}, repeated names as arrays", async () => {
    await fc.assert(
      fc.asyncProperty(pairs(fieldName, fieldValue), async (record) => {
        expect(await parseHookBody(form(record), "application/x-www-form-urlencoded")).toEqual(grouped(record));
      }),
      { numRuns: RUNS },
    );
  });

  it("multipart/form-data: fields parse back the same way", async () => {
    // A quoted name cannot hold a quote, a backslash or a control character as written (RFC 7578 §4.2 escapes
    // them; a header is text); a part with an empty name is skipped.
    const partName = fieldName.filter((name) => name !== "" && !/["\\\p{Cc}]/u.test(name));
    const partValue = fieldValue.filter((value) => !value.includes(BOUNDARY));
    await fc.assert(
      fc.asyncProperty(pairs(partName, partValue), async (record) => {
        const body = multipart(record.map(([name, value]) => ({ name, value })));
        expect(await parseHookBody(body, MULTIPART)).toEqual(grouped(record));
      }),
      { numRuns: RUNS },
    );
  });

  it("XML: child elements and attributes parse back as strings, trimmed as written", async () => {
    const name = fc
      .stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,10}$/)
      .filter((tag) => !["__proto__", "constructor", "prototype"].includes(tag));
    const value = fc.string({ unit: "binary", maxLength: 40 }).map(xmlCharsOnly);
    const attributes = fc.uniqueArray(fc.tuple(name, value), { maxLength: 4, selector: ([attribute]) => attribute });
    await fc.assert(
      fc.asyncProperty(pairs(name, value), attributes, async (children, attrs) => {
        const open = attrs.map(([attribute, text]) => ` ${attribute}="${xmlAttribute(text)}"`).join("");
        const inner = children.map(([tag, text]) => `<${tag}>${xmlText(text)}</${tag}>`).join("\n");
        const body = text(`<?xml version="1.0" encoding="UTF-8"?>\n<record${open}>\n${inner}\n</record>`);
        const expected: Record<string, JsonValue> = grouped(
          children.map(([tag, text]) => [tag, written(xmlText(text))]),
        );
        for (const [attribute, text] of attrs) expected[`@${attribute}`] = written(xmlAttribute(text));
        const tree = await parseHookBody(body, "application/xml");
        expect(tree).toEqual({ record: Object.keys(expected).length === 0 ? "" : expected });
      }),
      { numRuns: RUNS },
    );
  });
});

/** A string with only the characters XML 1.0 allows (§2.2, Char). */
function xmlCharsOnly(value: string): string {
  return [...value]
    .filter((char) => {
      const code = char.codePointAt(0) ?? 0;
      return (
        code === 0x9 ||
        code === 0xa ||
        code === 0xd ||
        (code >= 0x20 && code <= 0xd7ff) ||
        (code >= 0xe000 && code <= 0xfffd) ||
        code >= 0x10000
      );
    })
    .join("");
}

/** What a value written as `escaped` reads back as: trimmed as written (before its references are decoded). */
function written(escaped: string): string {
  return escaped
    .trim()
    .replace(
      /&(lt|gt|quot|#13|amp);/g,
      (_, name: string) => ({ lt: "<", gt: ">", quot: '"', "#13": "\r", amp: "&" })[name] ?? "",
    );
}
