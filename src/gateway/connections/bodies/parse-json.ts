import { nestsDeeper } from "../../../http/json-depth.js";
import { malformed, tooDeep } from "./hook-body-error.js";
import type { JsonValue } from "./json-value.js";
import type { HookBodyLimits } from "./limits.js";
import { utf8Text } from "./utf8-text.js";

/**
 * A JSON body, as intake parses one (src/http/json-body.ts): the nesting checked on the bytes before parsing (D-164),
 * UTF-8 strictly, then JSON.parse. Numbers and booleans stay what JSON says they are.
 */
export function parseJson(raw: Uint8Array, limits: HookBodyLimits): JsonValue {
  return parseJsonText(raw, limits).tree;
}

/** parseJson(), with the text it parsed (the body as received, a byte-order mark dropped): JSON of the tree. */
export function parseJsonText(raw: Uint8Array, limits: HookBodyLimits): { tree: JsonValue; text: string } {
  if (nestsDeeper(raw, limits.maxDepth)) throw tooDeep(limits.maxDepth);
  const text = utf8Text(raw, "JSON");
  try {
    return { tree: JSON.parse(text) as JsonValue, text };
  } catch (cause) {
    throw malformed("the body is not valid JSON", cause);
  }
}
