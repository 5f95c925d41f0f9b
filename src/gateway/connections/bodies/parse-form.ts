import { FieldTree } from "./field-tree.js";
import type { JsonValue } from "./json-value.js";
import type { HookBodyLimits } from "./limits.js";
import { utf8Text } from "./utf8-text.js";

/**
 * An `application/x-www-form-urlencoded` body (Acuity's), split and decoded as URLSearchParams does (the WHATWG URL
 * standard's form parser): `+` is a space, a percent-escape that is not one stays as written, percent-encoded bytes
 * that are not UTF-8 become U+FFFD (D-281). The body's own bytes must be UTF-8.
 */
export function parseForm(raw: Uint8Array, limits: HookBodyLimits): JsonValue {
  const text = utf8Text(raw, "form");
  const fields = new FieldTree(limits.maxFields);
  // The constructor drops one leading "?" (it takes a URL's query); the form parser does not. A leading "&" makes an
  // empty pair, which both skip.
  for (const [name, value] of new URLSearchParams(`&${text}`)) fields.add(name, value);
  return fields.tree();
}
