import { REGION_CODES, REGION_NAMES } from "./us-regions.js";
import { wordSet } from "./word-set.js";

/**
 * What a value looks like, read from the value alone (docs/profiles.md, "Suggested profiles"). Each recogniser is
 * strict where a wrong yes would put a look-alike in a canonical field: a ZIP+4 or an IP address is not a phone, a
 * company is not a person, a number of bedrooms is not a street.
 */
export type Shape =
  | "email"
  | "phone"
  | "phoneLike"
  | "zip"
  | "region"
  | "street"
  | "fullAddress"
  | "personName"
  | "nameWord"
  | "date"
  | "time"
  | "localDateTime"
  | "zonedDateTime"
  | "epochSeconds"
  | "epochMillis"
  | "zone"
  | "bool"
  | "id"
  | "text";

export type Scalar = string | number | boolean | null;

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

const US_ZIP = /^\d{5}(?:-\d{4})?$/;
const CA_POSTAL = /^[A-Za-z]\d[A-Za-z] ?\d[A-Za-z]\d$/;
const UK_POSTCODE = /^[A-Za-z]{1,2}\d[A-Za-z\d]? ?\d[A-Za-z]{2}$/;

export function isZip(value: Scalar): boolean {
  // A ZIP sent as a number has lost any leading zero: only five-digit numbers are taken for one.
  if (typeof value === "number") return Number.isInteger(value) && value >= 10_000 && value <= 99_999;
  if (typeof value !== "string") return false;
  const text = value.trim();
  return US_ZIP.test(text) || CA_POSTAL.test(text) || UK_POSTCODE.test(text);
}

/** A US state or Canadian province, by its postal code or its name. */
export function isRegion(value: Scalar): boolean {
  if (typeof value !== "string") return false;
  const text = value.trim().toLowerCase().replace(/\s+/g, " ");
  return REGION_CODES.has(text) || REGION_NAMES.has(text);
}

/** Words after a house number that make it a quantity, not a street ("3 bedrooms", "15 minutes"). */
const QUANTITY_WORDS = wordSet(`
  bed beds bedroom bedrooms bath baths bathroom bathrooms room rooms hour hours hr hrs minute minutes min mins day days
  week weeks month months year years yr yrs sq sqft square ft feet foot inch inches people person persons adults kids
  children unit units story stories floor floors car cars window windows door doors am pm kw kwh percent gallon
  gallons times x of to or and
`);
const STREET_WORDS = wordSet(`
  st street ave avenue av rd road blvd boulevard dr drive ln lane ct court way pl place pkwy parkway hwy highway cir
  circle trl trail ter terrace sq square loop pike run row plz plaza aly alley xing crossing expy freeway fwy cres
  crescent close walk path pass bend point pt ridge landing commons green grove heights hts park
`);
const DIRECTIONS = wordSet("n s e w ne nw se sw north south east west");
const HOUSE_NUMBER = /^(\d{1,6}[A-Za-z]?(?:-\d{1,5})?|\d{1,6} \d\/\d)\s+(.+)$/;
const PO_BOX = /^p\.?\s*o\.?\s*box\s+\d+/i;

/** A street line: a house number then the street's words ("12 Oak St", "1520 The Alameda"), or a PO box. */
export function isStreet(value: Scalar): boolean {
  if (typeof value !== "string") return false;
  const text = value.trim();
  if (text.length < 4 || text.length > 200) return false;
  if (PO_BOX.test(text)) return true;
  const match = HOUSE_NUMBER.exec(text);
  const rest = match?.[2];
  if (!rest || !/\p{L}/u.test(rest)) return false;
  const words = rest.split(/[\s,]+/).filter((w) => w !== "");
  const first = words[0]?.toLowerCase().replace(/[.,]$/, "") ?? "";
  if (QUANTITY_WORDS.has(first)) return false;
  const lower = words.map((w) => w.toLowerCase().replace(/[.,#]$/, ""));
  if (lower.some((w) => STREET_WORDS.has(w))) return true;
  if (DIRECTIONS.has(lower[0] ?? "") && words.length >= 2) return true;
  // No street word: a capitalised name still reads as a street ("1520 The Alameda", "4 Rue Cler").
  return words.length >= 2 && words.every((w) => /^[\p{Lu}\d]/u.test(w));
}

/** A whole postal address on one line: a street line, then the place ("12 Oak St, Austin, TX 78701"). */
export function isFullAddress(value: Scalar): boolean {
  if (typeof value !== "string") return false;
  const parts = value
    .split(/,|\n/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (parts.length < 2 || !isStreet(parts[0] ?? "")) return false;
  const tail = parts.slice(1).join(" ");
  const words = tail.split(/\s+/);
  return parts.length >= 3 || words.some((w) => isZip(w) || isRegion(w));
}

/** Words that make a name a business's ("Prairie Peak Roofing LLC" is no person's name). */
const COMPANY_WORDS = wordSet(`
  llc l.l.c. inc inc. incorporated ltd ltd. limited co co. corp corp. corporation company companies group services
  service solutions systems holdings enterprises partners associates agency studio studios clinic dental medical
  realty builders building construction contracting contractors roofing plumbing electric electrical heating cooling
  hvac landscaping interiors design remodeling restoration cleaning insurance bank capital consulting marketing
  media labs store shop market foods restaurant cafe hotel motel church school university college academy center
  centre institute foundation trust fund properties property management logistics transport motors auto & and
  plc gmbh s.a. sa pty bv nv ag lp llp pllc pc
`);

/** Answers that are never anyone's name. */
const NOT_NAMES = wordSet(`
  yes no true false n/a na none null undefined unknown test other asap yesno ok okay maybe
`);
const NAME_WORD = /^[\p{L}][\p{L}\p{M}'’.-]*$/u;

/**
 * A person's name as people type it: one to five words of letters (apostrophes, hyphens, initials), or "Last, First";
 * no digits, no business words. `personName` is two words or more, `nameWord` one word.
 */
export function nameShape(value: Scalar): "personName" | "nameWord" | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim().replace(/\s+/g, " ");
  if (text.length < 2 || text.length > 80) return undefined;
  const comma = text.split(",");
  if (comma.length > 2) return undefined;
  const words = comma
    .join(" ")
    .split(" ")
    .filter((w) => w !== "");
  if (words.length === 0 || words.length > 5) return undefined;
  if (!words.every((w) => NAME_WORD.test(w))) return undefined;
  if (!words.some((w) => w.replace(/[.'’-]/g, "").length >= 2)) return undefined;
  const lower = words.map((w) => w.toLowerCase());
  if (lower.some((w) => COMPANY_WORDS.has(w)) || NOT_NAMES.has(lower.join(" "))) return undefined;
  return words.length >= 2 ? "personName" : "nameWord";
}

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

export const SHAPES: readonly Shape[] = [
  "email",
  "phone",
  "phoneLike",
  "zip",
  "region",
  "street",
  "fullAddress",
  "personName",
  "nameWord",
  "date",
  "time",
  "localDateTime",
  "zonedDateTime",
  "epochSeconds",
  "epochMillis",
  "zone",
  "bool",
  "id",
  "text",
];
const BIT = new Map(SHAPES.map((shape, i) => [shape, 1 << i]));

/** Whether a set of shapes (`shapeMask`) has `shape`. */
export const hasShape = (mask: number, shape: Shape): boolean => (mask & (BIT.get(shape) ?? 0)) !== 0;

/**
 * Every shape a value has, as bits (a value may have several: "2026-05-03" is a date and an id; 5125550123 is a
 * phone). Bits rather than a set: a large payload has ten thousand values.
 */
export function shapeMask(value: Scalar): number {
  if (value === null || value === "") return 0;
  let mask = 0;
  const add = (shape: Shape) => {
    mask |= BIT.get(shape) ?? 0;
  };
  const text = typeof value === "string" ? value : undefined;
  if (text?.includes("@") && isEmail(text)) add("email");
  if (isPhone(value)) add("phone");
  if (isPhoneLike(value)) add("phoneLike");
  if (isZip(value)) add("zip");
  if (isRegion(value)) add("region");
  // Streets and addresses begin with a house number or a PO box.
  if (text !== undefined && /^\s*(?:\d|p)/i.test(text)) {
    if (isStreet(value)) add("street");
    if (isFullAddress(value)) add("fullAddress");
  }
  const name = nameShape(value);
  if (name) add(name);
  if (text !== undefined && /^\s*\d/.test(text)) {
    if (isDate(value)) add("date");
    if (isTime(value)) add("time");
    if (isLocalDateTime(value)) add("localDateTime");
    if (isZonedDateTime(value)) add("zonedDateTime");
  }
  if (isEpochSeconds(value)) add("epochSeconds");
  if (isEpochMillis(value)) add("epochMillis");
  if (isZone(value)) add("zone");
  if (isBool(value)) add("bool");
  if (isId(value)) add("id");
  if (text !== undefined && /\p{L}/u.test(text)) add("text");
  return mask;
}

/** The shapes of a value as a set (for reading; the suggester itself keeps the bits). */
export function shapesOf(value: Scalar): Set<Shape> {
  const mask = shapeMask(value);
  return new Set(SHAPES.filter((shape) => hasShape(mask, shape)));
}
