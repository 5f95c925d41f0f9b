import type { Scalar } from "./scalar.js";
import { isEpochMillis, isEpochSeconds } from "./shape-time.js";

/** Recognisers of contact values (docs/profiles.md, "Suggested profiles"): an e-mail address, a phone number. */

const EMAIL = /^[^\s@<>(),;:"[\]]+@[^\s@<>(),;:"[\]]+\.[A-Za-z]{2,}$/;
const DISPLAY_EMAIL = /<([^<>]+)>\s*$/;

/** An e-mail address, also as `mailto:…` or `Name <address>` (what `$normalizeEmail` reads). */
export function isEmail(value: string): boolean {
  let text = value.trim();
  if (text.length > 320) return false;
  const display = DISPLAY_EMAIL.exec(text);
  if (display?.[1]) text = display[1].trim();
  if (text.toLowerCase().startsWith("mailto:")) text = text.slice(7);
  return EMAIL.test(text);
}

const PHONE_CHARS = /^\+?[\d\s().-]+(?:\s*(?:ext\.?|extension|x|#)\s*\d{1,6})?$/i;
const ZIP_PLUS_FOUR = /^\d{5}-\d{4}$/;
const IP_ADDRESS = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const DECIMAL = /^\d+[.,]\d{1,2}$/;
const ISO_DATE_START = /^\d{4}-\d{2}-\d{2}/;

/** A telephone number: 7 to 15 digits with the usual separators, an optional + and extension. */
export function isPhone(value: Scalar): boolean {
  if (typeof value === "number") {
    // A bare number is a phone only as a whole national number (10 digits, NANP's first digit 2–9) or longer.
    return (
      Number.isInteger(value) &&
      value >= 2_000_000_000 &&
      value < 1e15 &&
      !isEpochSeconds(value) &&
      !isEpochMillis(value)
    );
  }
  if (typeof value !== "string") return false;
  const text = value.trim();
  if (text.length < 7 || text.length > 40 || !PHONE_CHARS.test(text)) return false;
  if (ZIP_PLUS_FOUR.test(text) || IP_ADDRESS.test(text) || DECIMAL.test(text) || ISO_DATE_START.test(text))
    return false;
  const digits = text.replace(/(?:ext\.?|extension|x|#)\s*\d{1,6}$/i, "").replace(/\D/g, "");
  if (digits.length < 7 || digits.length > 15) return false;
  const bare = /^\d+$/.test(text);
  // Digits alone: a whole number (10+ digits), never an epoch (10 digits from 1: no NANP number starts with 1).
  if (bare) return digits.length >= 10 && !(digits.length === 10 && digits.startsWith("1")) && !isEpochMillis(text);
  return true;
}

/**
 * Looser than a phone: 7 to 15 digits however written, a bare run of digits included. Enough for a field whose name
 * says phone (test data's "1231231234"); never enough to take a value for a phone by its looks alone.
 */
export function isPhoneLike(value: Scalar): boolean {
  if (isPhone(value)) return true;
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  return /^\+?\d{7,15}$/.test(text);
}
