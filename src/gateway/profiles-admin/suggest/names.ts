import { type Candidate, isSomeoneElse, opaque, rank, weakest } from "./candidates.js";
import { withFallbacks } from "./fallbacks.js";
import { isBlank, type Leaf } from "./leaves.js";
import { chainReason, nearest, type Picked, type Reading } from "./reading.js";
import { hasShape, type Shape } from "./shapes.js";
import { firstOf } from "./writer.js";

/**
 * §2.7 fullName: a name field (a "Last, First" name turned around), else the first and last names joined; a value
 * that looks like a name is taken without a name saying so only for an answer known by an id, preferring the one
 * whose words appear in the lead's e-mail address. A company's name is never a person's (shapes.ts, concepts.ts).
 */
export function pickName(r: Reading, email: readonly Leaf[]): Picked {
  const full = rank(
    r.candidates,
    { concept: "fullName", shapes: ["personName", "nameWord"], person: true, varying: true, byValue: true },
    r.payloads,
  );
  // A name part is as typed: an initial ("P") is a last name too, when the field is named so.
  const parts: Shape[] = ["nameWord", "personName", "text"];
  const first = rank(r.candidates, { concept: "firstName", shapes: parts, person: true }, r.payloads);
  const named = full.filter((c) => c.name >= 2);
  const firstBest = first.find((c) => c.name >= 2);
  const last = firstBest
    ? nearest(
        rank(r.candidates, { concept: "lastName", shapes: parts, person: true }, r.payloads).filter((c) => c.name >= 2),
        firstBest.leaf,
      )
    : undefined;
  const joined = firstBest ? joinParts(firstBest, last, r) : undefined;
  const fullBest = named[0];
  if (fullBest) {
    const chain = withFallbacks(named);
    const text = firstOf([...chain.map((c) => nameText(c.leaf, r)), ...(joined ? [joined.text] : [])]);
    const extra = joined ? ` Where it is blank: ${joined.reason}` : "";
    return {
      mapped: {
        field: "fullName",
        text,
        sources: [...chain.map((c) => c.leaf), ...(joined?.sources ?? [])],
        confidence: fullBest.confidence,
        reason: `${chainReason(chain)}${extra}`,
      },
    };
  }
  if (joined) return { mapped: { field: "fullName", ...joined } };
  const byValue = byEmail(full, email);
  if (byValue) {
    return {
      mapped: {
        field: "fullName",
        text: nameText(byValue.leaf, r),
        sources: [byValue.leaf],
        confidence: "guess",
        reason: byValue.reason,
      },
    };
  }
  const split = splitByEmail(r, email);
  if (split) return { mapped: { field: "fullName", ...split } };
  return { missed: { field: "fullName", note: "no field holds a person's name (a company's name is not one)" } };
}

/**
 * A name in two answers known only by their ids (`1.3`, `1.6`): the first is one word that appears in the lead's
 * e-mail address in most payloads, the last the one-word answer right after it in the same form.
 */
function splitByEmail(r: Reading, email: readonly Leaf[]) {
  if (email.length === 0) return undefined;
  const oneWord = (leaf: Leaf) =>
    leaf.present > 0 &&
    opaque([...leaf.naming.own, ...leaf.naming.label]) &&
    !isSomeoneElse(leaf) &&
    leaf.masks.every((m, i) => hasShape(m, "nameWord") || isBlank(leaf.values[i]));
  for (const first of r.candidates) {
    if (!oneWord(first)) continue;
    const agree = first.values.filter((value, i) => {
      const address = email.map((leaf) => leaf.values[i]).find((v) => typeof v === "string");
      return typeof value === "string" && typeof address === "string" && nameInEmail(value, address);
    }).length;
    if (agree * 2 <= first.present) continue;
    const last = r.candidates.find(
      (leaf) => leaf.group === first.group && leaf.order === first.order + 1 && oneWord(leaf),
    );
    if (!last) continue;
    return {
      text: `$joinName(${r.writer.path(first)}, ${r.writer.path(last)})`,
      sources: [first, last],
      confidence: "guess" as const,
      reason: `no name says so, but \`${first.naming.shown}\` is one word found in the e-mail address in ${agree} of ${first.present} payloads, and \`${last.naming.shown}\` the one word right after it: a first and a last name.`,
    };
  }
  return undefined;
}

/** A name field as written, or turned around when every value is "Last, First". */
function nameText(leaf: Leaf, r: Reading): string {
  const path = r.writer.path(leaf);
  const given = leaf.values.filter((v): v is string => typeof v === "string" && v.trim() !== "");
  const lastFirst = given.length > 0 && given.every((v) => /^[^,]+,\s*[^,]+$/.test(v.trim()));
  return lastFirst ? `( $name := $splitName(${path}); $joinName($name.first, $name.last) )` : `$joinName(${path})`;
}

function joinParts(first: Candidate, last: Candidate | undefined, r: Reading) {
  const parts = last ? [first, last] : [first];
  return {
    text: `$joinName(${parts.map((c) => r.writer.path(c.leaf)).join(", ")})`,
    sources: parts.map((c) => c.leaf),
    confidence: weakest(...parts.map((c) => c.confidence)),
    reason: last
      ? `first name \`${first.leaf.naming.shown}\` and last name \`${last.leaf.naming.shown}\`, joined.`
      : `a first name (\`${first.leaf.naming.shown}\`) and no last name.`,
  };
}

/**
 * An answer known by its value alone, when no field is named a name: every value must look like a person's name,
 * and its words must appear in the lead's e-mail address in most payloads — "Central AC" never does.
 */
function byEmail(full: readonly Candidate[], email: readonly Leaf[]): Candidate | undefined {
  let best: { candidate: Candidate; agree: number } | undefined;
  for (const candidate of full) {
    if (candidate.name >= 2 || candidate.hits !== candidate.leaf.present) continue;
    if (!candidate.leaf.masks.every((m, i) => hasShape(m, "personName") || isBlank(candidate.leaf.values[i]))) continue;
    let agree = 0;
    candidate.leaf.values.forEach((value, i) => {
      const address = email.map((leaf) => leaf.values[i]).find((v) => typeof v === "string");
      if (typeof value === "string" && typeof address === "string" && nameInEmail(value, address)) agree++;
    });
    if (agree * 2 > candidate.leaf.present && (!best || agree > best.agree)) best = { candidate, agree };
  }
  if (!best) return undefined;
  const { candidate, agree } = best;
  return {
    ...candidate,
    reason: `no name says so (\`${candidate.leaf.naming.shown}\`), but every value looks like a person's name and in ${agree} of ${candidate.leaf.present} payloads it matches the e-mail address.`,
  };
}

const fold = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

export function nameInEmail(name: string, email: string): boolean {
  const local = fold(email.split("@")[0] ?? "");
  return fold(name)
    .split(/[^a-z]+/)
    .some((word) => word.length >= 3 && local.includes(word));
}
