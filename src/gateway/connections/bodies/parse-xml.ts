import { XMLParser, XMLValidator } from "fast-xml-parser";
import { malformed, tooDeep } from "./hook-body-error.js";
import type { JsonValue } from "./json-value.js";
import type { HookBodyLimits } from "./limits.js";
import { utf8Text } from "./utf8-text.js";
import { xmlEntities } from "./xml-entities.js";
import { prescanXml } from "./xml-prescan.js";

/**
 * An XML body (CraftJack's) → `{<root name>: <element>}` (D-282): an element with only text → that text, trimmed; one
 * with children or attributes → an object, attributes as "@name", children by name (repeated → an array in document
 * order), its own text beside them as "#text"; an empty element → "". Every value stays a string. Comments,
 * processing instructions and the XML declaration are dropped; CDATA is text; namespace prefixes stay in names.
 */
export function parseXml(raw: Uint8Array, limits: HookBodyLimits): JsonValue {
  const text = utf8Text(raw, "XML");
  prescanXml(text, limits);
  // The parser itself takes much that is not XML (two roots, an unclosed tag): the validator is the gate.
  const invalid = XMLValidator.validate(text);
  if (invalid !== true) {
    const { msg, line, col } = invalid.err;
    throw malformed(`the XML body is not well-formed: ${msg} (line ${line}, column ${col})`);
  }
  let tree: JsonValue;
  try {
    tree = parserFor(limits.maxDepth).parse(text) as JsonValue;
  } catch (cause) {
    // The library refuses an element named __proto__, constructor or prototype (its guard against pollution).
    throw malformed(`the XML body is not accepted: ${cause instanceof Error ? cause.message : String(cause)}`, cause);
  }
  if (deeperThan(tree, limits.maxDepth)) throw tooDeep(limits.maxDepth);
  return tree;
}

/** A parser for the conventions above; one per body, as cheap as the options it copies. */
function parserFor(maxDepth: number): XMLParser {
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "@",
    textNodeName: "#text",
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    cdataPropName: false,
    commentPropName: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    removeNSPrefix: false,
    processEntities: true,
    entityDecoder: xmlEntities,
    // The prescan has measured the nesting already; this bounds the parser's own recursion should it ever disagree.
    maxNestedTags: maxDepth,
    // Names are kept literally: the library would rename toString, valueOf, hasOwnProperty… with a "__" prefix.
    onDangerousProperty: (name) => name,
  });
}

/** Whether the tree nests arrays and objects deeper than `maxDepth`: arrays of repeated elements add levels. */
function deeperThan(value: JsonValue, maxDepth: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (maxDepth === 0) return true;
  return Object.values(value).some((child) => deeperThan(child, maxDepth - 1));
}
