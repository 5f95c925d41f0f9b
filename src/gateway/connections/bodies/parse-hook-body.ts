import { HookBodyError } from "./hook-body-error.js";
import type { JsonValue } from "./json-value.js";
import { HOOK_BODY_LIMITS, type HookBodyLimits } from "./limits.js";
import { hookBodyType } from "./media-type.js";
import { parseForm } from "./parse-form.js";
import { parseJsonText } from "./parse-json.js";
import { parseMultipart } from "./parse-multipart.js";
import { parseXml } from "./parse-xml.js";

/**
 * A hook's raw body and content type → the one JSON tree its connection's profile maps (docs/connections.md,
 * "Bodies"). Refusals reject with a HookBodyError, whose `code` is from a closed list and says the status; nothing
 * else is thrown, whatever the bytes (the property tests hold it to that). The limits default to intake's.
 */
export async function parseHookBody(
  raw: Uint8Array,
  contentType: string | undefined,
  limits: Partial<HookBodyLimits> = {},
): Promise<JsonValue> {
  return (await parseHookBodyText(raw, contentType, limits)).tree;
}

/**
 * parseHookBody(), with the tree as JSON text: a JSON body's own text as received (it parses to the tree, so it need
 * not be written again, D-365), any other body's tree written as JSON.
 */
export async function parseHookBodyText(
  raw: Uint8Array,
  contentType: string | undefined,
  limits: Partial<HookBodyLimits> = {},
): Promise<{ tree: JsonValue; text: string }> {
  const bounds: HookBodyLimits = { ...HOOK_BODY_LIMITS, ...limits };
  // §8 before anything else, as at intake (a 413 before a 415).
  if (raw.byteLength > bounds.maxBytes) {
    throw new HookBodyError("body_too_large", `the body exceeds ${bounds.maxBytes} bytes`, {
      details: { maxBytes: bounds.maxBytes },
    });
  }
  const type = hookBodyType(contentType);
  switch (type) {
    case "json":
      return parseJsonText(raw, bounds);
    case "form":
      return written(parseForm(raw, bounds));
    case "multipart":
      // hookBodyType() has matched a content type, so there is one.
      return written(await parseMultipart(raw, contentType ?? "", bounds));
    case "xml":
      return written(parseXml(raw, bounds));
  }
}

function written(tree: JsonValue): { tree: JsonValue; text: string } {
  return { tree, text: JSON.stringify(tree) };
}
