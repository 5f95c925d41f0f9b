import type { Scalar } from "./scalar.js";
import { isEmail, isPhone, isPhoneLike } from "./shape-contact.js";
import { isBool, isId } from "./shape-misc.js";
import { nameShape } from "./shape-name.js";
import { isFullAddress, isRegion, isStreet, isZip } from "./shape-place.js";
import {
  isDate,
  isEpochMillis,
  isEpochSeconds,
  isLocalDateTime,
  isTime,
  isZone,
  isZonedDateTime,
} from "./shape-time.js";

export { isEmail, isPhone, isPhoneLike } from "./shape-contact.js";
export { isBool, isId } from "./shape-misc.js";
export { nameShape } from "./shape-name.js";
export { isFullAddress, isRegion, isStreet, isZip } from "./shape-place.js";
export {
  isDate,
  isEpochMillis,
  isEpochSeconds,
  isLocalDateTime,
  isTime,
  isZone,
  isZonedDateTime,
} from "./shape-time.js";

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
