import { text } from "./text.js";

const TRUE_WORDS = new Set(["true", "t", "yes", "y", "1", "on", "checked", "agree", "agreed", "accept", "accepted"]);
const FALSE_WORDS = new Set(["false", "f", "no", "n", "0", "off", "unchecked", "decline", "declined", ""]);

/**
 * `$toBool(v)`: the ways forms say yes or no (`"yes"`, `"Y"`, `"true"`, `1`, `"on"`, `"checked"`…) as a boolean.
 * Anything unrecognised is undefined, not false: a consent flag governs messaging (§2.7), so an unreadable answer must
 * not silently become a "no" or a "yes".
 */
export function toBool(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value === 1 ? true : value === 0 ? false : undefined;
  if (Array.isArray(value)) return value.length === 1 ? toBool(value[0]) : undefined;
  const word = text(value)?.trim().toLowerCase();
  if (word === undefined) return undefined;
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** `$default(v, fallback)`: `fallback` when `v` is missing, null, blank text or an empty list; `v` otherwise. */
export function defaultTo(value: unknown, fallback: unknown): unknown {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "string" && value.trim() === "") return fallback;
  if (Array.isArray(value) && value.length === 0) return fallback;
  return value;
}
