import type { Scalar } from "./scalar.js";
import { REGION_CODES, REGION_NAMES } from "./us-regions.js";
import { wordSet } from "./word-set.js";

/**
 * Recognisers of places (docs/profiles.md, "Suggested profiles"): a ZIP, a state, a street line, a whole address.
 * Strict where a wrong yes would make an address of a region: a number of bedrooms is not a street.
 */

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
