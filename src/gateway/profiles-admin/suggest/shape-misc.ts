import type { Scalar } from "./scalar.js";
import { isEmail } from "./shape-contact.js";
import { wordSet } from "./word-set.js";

/** Recognisers of a yes or no and of a record's id (docs/profiles.md, "Suggested profiles"). */

/** What `$toBool` reads as yes or no (helpers/values.ts), blank excepted: a blank says nothing. */
const BOOL_WORDS = wordSet(`
  true t yes y 1 on checked agree agreed accept accepted false f no n 0 off unchecked decline declined
`);

export function isBool(value: Scalar): boolean {
  if (typeof value === "boolean") return true;
  if (typeof value === "number") return value === 0 || value === 1;
  return typeof value === "string" && BOOL_WORDS.has(value.trim().toLowerCase());
}

/** A record's identifier: no spaces, 1–200 characters or an integer, and not something else recognisable. */
export function isId(value: Scalar): boolean {
  if (typeof value === "number") return Number.isInteger(value) && value >= 0;
  if (typeof value !== "string") return false;
  const text = value.trim();
  return text.length >= 1 && text.length <= 200 && !/\s/.test(text) && !isEmail(text) && !/^https?:/i.test(text);
}
