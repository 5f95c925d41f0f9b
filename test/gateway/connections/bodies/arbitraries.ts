import fc from "fast-check";
import type { HookBodyLimits } from "../../../../src/gateway/connections/bodies/index.js";
import { MULTIPART, multipart, type Part, text } from "./fixtures.js";

/**
 * Generators of hostile hook bodies and content types for bodies.property.test.ts: arbitrary bytes, and documents of
 * each type that are valid, hostile (DTDs, entities, file parts, deep nesting), cut short or corrupted.
 */

const TYPES = [
  "application/json",
  "text/json",
  "application/ld+json",
  "application/x-www-form-urlencoded",
  MULTIPART,
  "multipart/form-data",
  "application/xml",
  "text/xml",
  "application/atom+xml",
  "text/plain",
  "application/octet-stream",
];

const PARAMETERS = fc.oneof(
  fc.constantFrom(
    "; charset=utf-8",
    ';charset="UTF-8"',
    "; charset=latin1",
    "; boundary=x",
    "; boundary=",
    ";",
    "; =",
    '; a="b;c"',
  ),
  fc.string({ maxLength: 20 }).map((junk) => `; ${junk}`),
);

export const contentTypes: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constantFrom(...TYPES),
  fc
    .tuple(fc.constantFrom(...TYPES), fc.array(PARAMETERS, { maxLength: 3 }), fc.boolean())
    .map(([type, parameters, upper]) => `${upper ? type.toUpperCase() : type}${parameters.join("")}`),
  fc.string({ maxLength: 40 }),
  fc.constant(undefined),
);

/** Strings with the characters that matter to these parsers, and any code point. */
const hostileText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({
    unit: fc.constantFrom("&", "<", ">", "=", "%", "+", "\r", "\n", '"', "'", ";", "#", "-", "a", " ", "\0"),
  }),
  fc.constantFrom("__proto__", "constructor", "toString", "a[b]", "", "&nbsp;", "&#0;", "%FF", "]]>", "--"),
);

const XML_SNIPPETS = [
  '<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
  '<!ENTITY % p "x">',
  "&lol9;",
  "&amp;",
  "&#x1F600;",
  "&#xD800;",
  "<![CDATA[ <a>&x; ]]>",
  "<!-- <!DOCTYPE -->",
  "<?pi x?>",
  '<?xml version="1.0" encoding="latin1"?>',
  "</a>",
  "<a/>",
  'b="1"',
];

/** An XML element tree written as text, with hostile pieces among the ordinary ones. */
const xmlDocument: fc.Arbitrary<string> = fc.letrec<{ element: string; content: string }>((tie) => ({
  element: fc
    .tuple(
      fc.constantFrom("a", "b", "ns:c", "toString", "e-1", "constructor"),
      fc.array(fc.tuple(fc.constantFrom("x", "y", "xmlns:ns", "__proto__"), hostileText), { maxLength: 3 }),
      fc.array(tie("content"), { maxLength: 4 }),
    )
    .map(([name, attributes, content]) => {
      const attrs = attributes.map(([attr, value]) => ` ${attr}="${value}"`).join("");
      return content.length === 0 ? `<${name}${attrs}/>` : `<${name}${attrs}>${content.join("")}</${name}>`;
    }),
  content: fc.oneof({ depthSize: "small" }, hostileText, fc.constantFrom(...XML_SNIPPETS), tie("element")),
})).element;

const deepXml = fc.nat({ max: 200 }).map((depth) => `${"<e>".repeat(depth)}x${"</e>".repeat(depth)}`);
const deepJson = fc.nat({ max: 200 }).map((depth) => `${"[".repeat(depth)}1${"]".repeat(depth)}`);

const parts: fc.Arbitrary<Part[]> = fc.array(
  fc.oneof(
    fc.record({ name: hostileText, value: hostileText }),
    fc.record({ name: hostileText, filename: hostileText, value: hostileText }),
  ),
  { maxLength: 5 },
);

const typed = (body: Uint8Array, contentType: string): [Uint8Array, string] => [body, contentType];

/** A document of each type with its own content type, so that each parser is reached and driven past its first byte. */
const typedDocuments: fc.Arbitrary<[Uint8Array, string]> = fc.oneof(
  fc.oneof(fc.json(), deepJson).map((body) => typed(text(body), "application/json")),
  fc
    .array(fc.tuple(hostileText, hostileText), { maxLength: 8 })
    .map((pairs) =>
      typed(text(pairs.map(([name, value]) => `${name}=${value}`).join("&")), "application/x-www-form-urlencoded"),
    ),
  parts.map((list) => typed(multipart(list), MULTIPART)),
  fc
    .tuple(fc.constantFrom("", '<?xml version="1.0"?>', "\uFEFF"), fc.oneof(xmlDocument, deepXml))
    .map(([prolog, body]) => typed(text(`${prolog}${body}`), "application/xml")),
);

/** One corruption of a body: cut short, a byte changed, bytes inserted, or a slice repeated. */
function corrupted(body: Uint8Array): fc.Arbitrary<Uint8Array> {
  const at = fc.nat({ max: body.length });
  return fc.oneof(
    fc.constant(body),
    at.map((cut) => body.subarray(0, cut)),
    fc.tuple(at, fc.nat({ max: 255 })).map(([index, byte]) => {
      const copy = Uint8Array.from(body);
      if (index < copy.length) copy[index] = byte;
      return copy;
    }),
    fc
      .tuple(at, fc.uint8Array({ maxLength: 8 }))
      .map(([index, bytes]) => Buffer.concat([body.subarray(0, index), bytes, body.subarray(index)])),
    fc.tuple(at, at).map(([from, to]) => Buffer.concat([body, body.subarray(Math.min(from, to), Math.max(from, to))])),
  );
}

export const typedBodies: fc.Arbitrary<[Uint8Array, string]> = typedDocuments.chain(([body, contentType]) =>
  corrupted(body).map((bytes) => typed(bytes, contentType)),
);

export const anyBodies: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 2_000 }),
  fc.string({ unit: "binary", maxLength: 500 }).map(text),
  typedDocuments.map(([body]) => body),
);

/** Limits as given, or tight enough that the limits are met on generated bodies. */
export const limits: fc.Arbitrary<Partial<HookBodyLimits> | undefined> = fc.option(
  fc.record(
    { maxBytes: fc.nat({ max: 3_000 }), maxDepth: fc.nat({ max: 12 }), maxFields: fc.nat({ max: 20 }) },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);
