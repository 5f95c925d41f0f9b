import { charge, chargeChars, fail } from "./runtime.js";
import { deepEqual, isNumeric, toText } from "./values.js";

/** JSONata's binary and unary operators (jsonata 2.2.2, evaluate*Expression), without the awaits. */

export type ArithmeticOperator = "+" | "-" | "*" | "/" | "%";
export type ComparisonOperator = "<" | "<=" | ">" | ">=";

/** evaluateNumericExpression: both sides numbers (T2001/T2002 otherwise), undefined if either is missing. */
export function arithmetic(lhs: unknown, rhs: unknown, op: ArithmeticOperator): number | undefined {
  if (lhs !== undefined && !isNumeric(lhs)) throw fail("T2001", lhs);
  if (rhs !== undefined && !isNumeric(rhs)) throw fail("T2002", rhs);
  if (lhs === undefined || rhs === undefined) return undefined;
  const l = lhs as number;
  const r = rhs as number;
  switch (op) {
    case "+":
      return l + r;
    case "-":
      return l - r;
    case "*":
      return l * r;
    case "/":
      return l / r;
    case "%":
      return l % r;
  }
}

/** evaluateEqualityExpression: false when either side is missing, deep equality otherwise. */
export function equality(lhs: unknown, rhs: unknown, negate: boolean): boolean {
  if (lhs === undefined || rhs === undefined) return false;
  return negate ? !deepEqual(lhs, rhs) : deepEqual(lhs, rhs);
}

/** evaluateComparisonExpression: strings or numbers of one type (T2010/T2009), undefined if either is missing. */
export function comparison(lhs: unknown, rhs: unknown, op: ComparisonOperator): boolean | undefined {
  const ltype = typeof lhs;
  const rtype = typeof rhs;
  const lcomparable = ltype === "undefined" || ltype === "string" || ltype === "number";
  const rcomparable = rtype === "undefined" || rtype === "string" || rtype === "number";
  if (!lcomparable || !rcomparable) throw fail("T2010", !(ltype === "string" || ltype === "number") ? lhs : rhs);
  if (ltype === "undefined" || rtype === "undefined") return undefined;
  if (ltype !== rtype) throw fail("T2009", lhs);
  const l = lhs as string | number;
  const r = rhs as string | number;
  switch (op) {
    case "<":
      return l < r;
    case "<=":
      return l <= r;
    case ">":
      return l > r;
    case ">=":
      return l >= r;
  }
}

/** evaluateIncludesExpression: strict equality against the right side's items (or the right side itself). */
export function includes(lhs: unknown, rhs: unknown): boolean {
  if (lhs === undefined || rhs === undefined) return false;
  const candidates = Array.isArray(rhs) ? rhs : [rhs];
  charge(candidates.length >> 2);
  for (const candidate of candidates) if (candidate === lhs) return true;
  return false;
}

/** evaluateStringConcat: both sides through $string, a missing side as "". */
export function concat(lhs: unknown, rhs: unknown): string {
  const l = lhs === undefined ? "" : (toText(lhs) as string);
  const r = rhs === undefined ? "" : (toText(rhs) as string);
  chargeChars(l.length + r.length);
  return l.concat(r);
}

/** Unary minus: a number negated, undefined kept, anything else D1002. */
export function negate(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (isNumeric(value)) return -value;
  throw fail("D1002", value);
}
