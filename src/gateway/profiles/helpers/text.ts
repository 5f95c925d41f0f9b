/**
 * Vendors send the same field as a string, a number (`"zip": 62704`) or a one-element array (form tools that post
 * every field as a list). Helpers read any of these as text; anything else counts as absent, the JSONata convention
 * for a missing value, so `$default` and validation see `undefined`.
 */
export function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (Array.isArray(value) && value.length === 1) return text(value[0]);
  return undefined;
}

/** Whitespace that tidy() must collapse: a run of two, or one that is not a plain space. */
const UNTIDY_SPACE = /\s\s|[^\S ]/;

/** Trimmed, inner whitespace collapsed to one space; undefined when nothing is left. */
export function tidy(value: unknown): string | undefined {
  const raw = text(value);
  if (raw === undefined) return undefined;
  // Most values are tidy already but for their ends: only trim them.
  const cleaned = (UNTIDY_SPACE.test(raw) ? raw.replace(/\s+/g, " ") : raw).trim();
  return cleaned === "" ? undefined : cleaned;
}

/** A helper's complaint about its arguments; JSONata keeps the message and adds the call's position. */
export class HelperError extends Error {
  override name = "HelperError";
  readonly code = "helper";
}
