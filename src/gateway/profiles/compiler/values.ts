import { LIMITS } from "../limits.js";
import {
  Bailout,
  charge,
  chargeChars,
  fail,
  inlineMaxChars,
  OverBudget,
  push,
  type Run,
  type Sequence,
  sequence,
  sequenceOf,
  tick,
} from "./runtime.js";

/**
 * JSONata's value functions (jsonata 2.2.2: utils.js and functions.js), ported line for line without the awaits.
 * Each keeps JSONata's errors where the interpreter throws, so a compiled evaluation fails exactly when the
 * interpreter's does; the interpreter's rerun then supplies the message and position.
 */

/** utils.isNumeric: a number that is not NaN; ±Infinity is an error (D1001) wherever JSONata asks. */
export function isNumeric(value: unknown): value is number {
  if (typeof value !== "number") return false;
  if (Number.isNaN(value)) return false;
  if (!Number.isFinite(value)) throw fail("D1001", value);
  return true;
}

/** utils.isArrayOfNumbers: every item is asked, as `filter` does (so an Infinity anywhere throws). */
export function isArrayOfNumbers(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  let all = true;
  for (const item of value) if (!isNumeric(item)) all = false;
  return all;
}

/** utils.isFunction: data flagged as a JSONata function counts as one (and is then opaque to lookups). */
export function isFunction(value: unknown): boolean {
  if (typeof value === "function") return true;
  if (typeof value !== "object" || value === null) return false;
  const flagged = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  return flagged._jsonata_function === true || flagged._jsonata_lambda === true;
}

/** fn.boolean: JSONata's effective boolean value; undefined stays undefined. */
export function toBoolean(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length === 1) return toBoolean(value[0]);
    if (value.length > 1) return value.filter((item) => toBoolean(item)).length > 0;
    return false;
  }
  if (typeof value === "string") return value.length > 0;
  if (isNumeric(value)) return value !== 0;
  if (value !== null && typeof value === "object" && !isFunction(value)) return Object.keys(value).length > 0;
  return value === true;
}

/** evaluateBooleanExpression's boolize: undefined counts as false. */
export function boolize(value: unknown): boolean {
  return toBoolean(value) ?? false;
}

/**
 * utils.isDeepEqual. Between an array and a non-array object JSONata compares own property names, which for its own
 * sequences include internal flags; that corner is left to the interpreter.
 */
export function deepEqual(lhs: unknown, rhs: unknown): boolean {
  charge(1);
  if (lhs === rhs) return true;
  if (typeof lhs !== "object" || typeof rhs !== "object" || lhs === null || rhs === null) return false;
  const lhsArray = Array.isArray(lhs);
  if (lhsArray !== Array.isArray(rhs)) throw new Bailout("equality of an array and an object");
  if (lhsArray && Array.isArray(rhs)) {
    if (lhs.length !== rhs.length) return false;
    for (let i = 0; i < lhs.length; i++) if (!deepEqual(lhs[i], rhs[i])) return false;
    return true;
  }
  const lkeys = Object.getOwnPropertyNames(lhs).sort();
  const rkeys = Object.getOwnPropertyNames(rhs).sort();
  if (lkeys.length !== rkeys.length) return false;
  for (let i = 0; i < lkeys.length; i++) if (lkeys[i] !== rkeys[i]) return false;
  const l = lhs as Record<string, unknown>;
  const r = rhs as Record<string, unknown>;
  for (const key of lkeys) if (!deepEqual(l[key], r[key])) return false;
  return true;
}

/** fn.string (without prettify): text as is, numbers to 15 significant digits, everything else as JSON. */
export function toText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string") return value;
  if (isFunction(value)) return "";
  if (typeof value === "number" && !Number.isFinite(value)) throw fail("D3001", value);
  const subject = Array.isArray(value) && (value as Sequence).outerWrapper ? value[0] : value;
  const maxChars = inlineMaxChars();
  if (maxChars !== undefined && typeof subject === "object" && subject !== null)
    chargeChars(jsonCharsUpTo(subject, maxChars));
  return JSON.stringify(subject, (_key, item: unknown) => {
    if (item !== undefined && item !== null && isNumeric(item)) {
      return Number.isInteger(item) ? item : Number(item.toPrecision(15));
    }
    return item && isFunction(item) ? "" : item;
  });
}

/**
 * About how many characters of JSON `value` makes, counted until past `limit` (then limit + 1): the measure that lets an
 * inline run refuse to stringify a value built of shared references, whose text can be exponentially larger than the
 * memory it takes. The count is a floor (punctuation and escapes are approximated), so the walk is bounded by `limit`.
 */
export function jsonCharsUpTo(value: unknown, limit: number): number {
  const count = { chars: 0, limit };
  try {
    countJson(value, count);
  } catch (error) {
    if (error instanceof OverBudget) return limit + 1;
    throw error;
  }
  return count.chars;
}

/** jsonCharsUpTo's walk: a module function rather than a closure made per call. */
function countJson(item: unknown, count: { chars: number; limit: number }): void {
  if (count.chars > count.limit) throw new OverBudget("size", "JSON over the inline bound");
  if (typeof item === "string") count.chars += item.length + 2;
  else if (item === null || typeof item !== "object") count.chars += 4;
  else if (Array.isArray(item)) {
    count.chars += 2;
    for (const element of item) {
      count.chars += 1;
      countJson(element, count);
    }
  } else {
    count.chars += 2;
    for (const key of Object.keys(item)) {
      count.chars += key.length + 4;
      countJson((item as Record<string, unknown>)[key], count);
    }
  }
}

/** fn.lookup: a field of an object, or of every object in a (nested) array, flattened into one sequence. */
export function lookup(input: unknown, key: string, run: Run): unknown {
  if (Array.isArray(input)) {
    const result = sequence();
    for (const item of input) {
      tick(run);
      const found = lookup(item, key, run);
      if (found === undefined) continue;
      if (Array.isArray(found)) for (const value of found) push(result, value);
      else push(result, found);
    }
    return result;
  }
  if (input !== null && typeof input === "object" && Object.hasOwn(input, key) && !isFunction(input)) {
    return (input as Record<string, unknown>)[key];
  }
  return undefined;
}

/**
 * fn.append: undefined on either side gives the other, otherwise a new plain array of both (an array on the right is
 * spread one level, as `concat` does).
 */
export function append(target: unknown, value: unknown): unknown {
  if (target === undefined) return value;
  if (value === undefined) return target;
  const left: unknown[] = Array.isArray(target) ? target : sequenceOf(target);
  const size = left.length + (Array.isArray(value) ? value.length : 1);
  if (size > LIMITS.sequenceLength) throw fail("D2015", size);
  charge(size >> 2);
  return left.concat(Array.isArray(value) ? value : [value]);
}
