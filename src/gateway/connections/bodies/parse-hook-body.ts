import { HookBodyError } from "./hook-body-error.js";
import type { JsonValue } from "./json-value.js";
import { HOOK_BODY_LIMITS, type HookBodyLimits } from "./limits.js";
import { hookBodyType } from "./media-type.js";
import { parseForm } from "./parse-form.js";
import { parseJson } from "./parse-json.js";
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
      return parseJson(raw, bounds);
    case "form":
      return parseForm(raw, bounds);
    case "multipart":
      // hookBodyType() has matched a content type, so there is one.
      return parseMultipart(raw, contentType ?? "", bounds);
    case "xml":
      return parseXml(raw, bounds);
  }
}
