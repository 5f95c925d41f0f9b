import type { Scalar } from "./scalar.js";
import { wordSet } from "./word-set.js";

/** The recogniser of a person's name, not a business's (docs/profiles.md, "Suggested profiles"). */

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
