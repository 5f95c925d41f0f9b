import { tidy } from "./text.js";

/**
 * `$normalizeEmail(s)`: trimmed and lower-cased, with a `mailto:` prefix and surrounding `<…>` removed. Lower-casing
 * the local part is technically lossy (RFC 5321 lets it be case-sensitive) but no mail provider in practice treats it
 * so, and one spelling per address is what de-duplication needs. Not validated here: the canonical schema does that
 * and names the field.
 */
export function normalizeEmail(value: unknown): string | undefined {
  let email = tidy(value);
  if (email === undefined) return undefined;
  email = email.replace(/^mailto:/i, "").trim();
  const bracketed = /^[^<]*<([^>]+)>$/.exec(email);
  if (bracketed?.[1]) email = bracketed[1].trim();
  return email.toLowerCase();
}
