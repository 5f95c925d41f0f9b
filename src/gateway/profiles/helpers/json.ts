import { MAX_JSON_DEPTH, textNestsDeeper } from "../../../http/json-depth.js";
import { LIMITS } from "../limits.js";
import { HelperError } from "./text.js";

/**
 * `$parseJson(text)`: a JSON document a vendor sends inside a string field (Jotform's `rawRequest`, docs/profiles.md).
 * Not text (missing, a number, a list) or blank text is undefined, the helpers' "missing"; text that is not JSON is a
 * mapping error naming the helper, never a guess. The document is held to what intake holds a request body to: at
 * most LIMITS.parseJsonChars characters, nested at most MAX_JSON_DEPTH deep, so nothing it brings into a mapping is
 * larger or deeper than a payload could have been (docs/decisions.md, D-302).
 */
export function parseJson(value: unknown): unknown {
  if (typeof value !== "string" || value.trim() === "") return undefined;
  if (value.length > LIMITS.parseJsonChars) {
    throw new HelperError(
      `$parseJson: the text is ${value.length} characters, over the ${LIMITS.parseJsonChars} limit`,
    );
  }
  if (textNestsDeeper(value, MAX_JSON_DEPTH)) {
    throw new HelperError(`$parseJson: the JSON nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(value) as unknown;
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : String(error);
    throw new HelperError(`$parseJson: the text is not valid JSON (${reason})`);
  }
}
