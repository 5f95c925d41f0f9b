import { MAX_JSON_DEPTH, nestsDeeper } from "../../../http/json-depth.js";

/** Objects and lists of a decoded document: what a `$parseJson` root may hold. */
export type JsonDocument = Record<string, unknown> | unknown[];

const LOOKS_LIKE_JSON = /^\s*[[{][\s\S]*[\]}]\s*$/;

/**
 * Strings that hold a JSON document (a form tool's answers as text), decoded once per run: the same text met in
 * several places or passes is parsed once. Held to what a request body is held to (docs/decisions.md, "Bounded
 * input"): nested no deeper than MAX_JSON_DEPTH, never larger than the payload it came in.
 */
export class JsonStrings {
  readonly #decoded = new Map<string, JsonDocument | null>();

  decode(text: string): JsonDocument | undefined {
    // Nearly every string is plain text: told apart by its first character, without a lookup.
    const first = text.trimStart()[0];
    if (first !== "{" && first !== "[") return undefined;
    const known = this.#decoded.get(text);
    if (known !== undefined) return known ?? undefined;
    const document = LOOKS_LIKE_JSON.test(text) ? parse(text) : undefined;
    this.#decoded.set(text, document ?? null);
    return document;
  }
}

function parse(text: string): JsonDocument | undefined {
  if (nestsDeeper(Buffer.from(text, "utf8"), MAX_JSON_DEPTH)) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value)) return value.length > 0 ? value : undefined;
    if (typeof value === "object" && value !== null && Object.keys(value).length > 0) {
      return value as Record<string, unknown>;
    }
  } catch {
    // Text that only looks like JSON is text.
  }
  return undefined;
}
