import type { Scalar } from "./scalar.js";

/** Recognisers of times (docs/profiles.md, "Suggested profiles"), as the shipped helpers read them. */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(?:([ap])\.?m\.?)?$/i;
const LOCAL = /^\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:\s*[ap]\.?m\.?)?$/i;
/** As `$localToUtc` reads an instant that carries its offset (helpers/local-time.ts). */
const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

export function isDate(value: Scalar): boolean {
  if (typeof value !== "string") return false;
  const m = DATE.exec(value.trim());
  if (!m) return false;
  const [, y, mo, d] = m;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  return date.getUTCMonth() === Number(mo) - 1 && date.getUTCDate() === Number(d);
}

export function isTime(value: Scalar): boolean {
  if (typeof value !== "string") return false;
  const m = TIME.exec(value.trim());
  if (!m) return false;
  const hour = Number(m[1]);
  return Number(m[2]) < 60 && (m[4] ? hour >= 1 && hour <= 12 : hour <= 23);
}

export function isLocalDateTime(value: Scalar): boolean {
  return typeof value === "string" && LOCAL.test(value.trim()) && isDate(value.trim().slice(0, 10));
}

export function isZonedDateTime(value: Scalar): boolean {
  if (typeof value !== "string") return false;
  const text = value.trim();
  return ZONED.test(text) && !Number.isNaN(Date.parse(text));
}

/** Epoch seconds from 2000 to 2100, as a number or a string of digits. */
export function isEpochSeconds(value: Scalar): boolean {
  const n = wholeNumber(value);
  return n !== undefined && n >= 946_684_800 && n <= 4_102_444_800;
}

export function isEpochMillis(value: Scalar): boolean {
  const n = wholeNumber(value);
  return n !== undefined && n >= 946_684_800_000 && n <= 4_102_444_800_000;
}

function wholeNumber(value: Scalar): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) ? value : undefined;
  if (typeof value === "string" && /^\d{9,13}$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

const zones = new Map<string, boolean>();

/** An IANA time zone the runtime knows (what `$localToUtc` accepts). */
export function isZone(value: Scalar): boolean {
  if (typeof value !== "string") return false;
  const text = value.trim();
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/.test(text) || text.length > 40) return false;
  if (!text.includes("/") && text !== "UTC") return false;
  let known = zones.get(text);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: text });
      known = true;
    } catch {
      known = false;
    }
    if (zones.size < 1_000) zones.set(text, known);
  }
  return known;
}
