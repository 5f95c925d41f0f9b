import { type Concept, type NameScore, NOT_THE_PERSON, nameScore } from "./concepts.js";
import type { Leaf } from "./leaves.js";
import { namesSomething } from "./relevance.js";
import { hasShape, type Shape } from "./shapes.js";
import type { Confidence } from "./types.js";
import { wordSet } from "./word-set.js";

/** A leaf that may supply a concept, how well its name and its values fit, and why (for the owner). */
export interface Candidate {
  leaf: Leaf;
  name: NameScore;
  /** Payloads whose value has one of the wanted shapes. */
  hits: number;
  score: number;
  confidence: Confidence;
  reason: string;
}

export interface Wanted {
  concept: Concept;
  /** Shapes that fit; a value with any of them counts. */
  shapes: readonly Shape[];
  /** The lead's own field: never read from inside the business's, the vendor's or an agent's part of the payload. */
  person?: boolean;
  /** Differs from one lead to the next: one value in every payload is the form's or the vendor's, not the lead's. */
  varying?: boolean;
  /** May be recognised by its values alone, when no name says anything (answers known only by an id). */
  byValue?: boolean;
  /** The shapes a value must have to be taken by its looks alone (stricter than `shapes`); `shapes` by default. */
  valueShapes?: readonly Shape[];
  /**
   * A value unmistakable by its looks (an e-mail, a formatted phone, a street) may be taken whatever its field is
   * called, when it differs from payload to payload — a vendor's own contact is the same in every payload.
   */
  anyName?: boolean;
  /** Extra ordering among fitting candidates (a mobile before a home phone). */
  prefer?: (leaf: Leaf) => number;
}

/** Two-letter words that do say something (`ad_id` is not an opaque answer id). */
const SHORT_WORDS = wordSet(`
  ad id no st tz ip pm am os ok us uk my me to of or in on at by is it an as be do go if up we so dr mr ms jr sr co
`);

/** Words a name is made of when it says nothing: question and answer ids (`q3`, `c9`, `101`, `k8Ff`). */
export function opaque(words: readonly string[]): boolean {
  return words.every(
    (word) => /^\d+$/.test(word) || word.length === 1 || (word.length === 2 && !SHORT_WORDS.has(word)),
  );
}

/** Whether a value-only match is allowed: the name is opaque (an answer's id) or at least hints at the concept. */
function nameless(leaf: Leaf, name: NameScore): boolean {
  return name === 1 || opaque([...leaf.naming.own, ...leaf.naming.label]);
}

function differs(leaf: Leaf, wanted: Wanted, payloads: number): boolean {
  return wanted.anyName === true && payloads >= 2 && leaf.distinct >= 2;
}

const SHAPE_WORDS: Readonly<Record<Shape, string>> = {
  email: "an e-mail address",
  phone: "a phone number",
  phoneLike: "a phone number",
  zip: "a ZIP code",
  region: "a state",
  street: "a street line",
  fullAddress: "a full address",
  personName: "a person's name",
  nameWord: "a name",
  date: "a date",
  time: "a time of day",
  localDateTime: "a local date and time",
  zonedDateTime: "a time with its offset",
  epochSeconds: "epoch seconds",
  epochMillis: "epoch milliseconds",
  zone: "an IANA time zone",
  bool: "a yes or no",
  id: "an id",
  text: "text",
};

/** Shapes that can make a field something by its value alone. */
const TELLING: readonly Shape[] = [
  "email",
  "phone",
  "street",
  "fullAddress",
  "personName",
  "nameWord",
  "zip",
  "region",
  "zone",
  "date",
  "time",
  "localDateTime",
  "zonedDateTime",
  "epochSeconds",
  "epochMillis",
];

/**
 * The leaves worth ranking: named like something, or with a value that tells what it is. The rest of a large payload
 * (free text under names that say nothing) is left out once, not looked at by every concept.
 */
export function mayMatter(leaf: Leaf): boolean {
  return namesSomething(leaf.naming) || TELLING.some((shape) => leaf.shapes.has(shape));
}

/** Every leaf that may supply `wanted`, best first (docs/decisions.md, D-311). */
export function rank(leaves: readonly Leaf[], wanted: Wanted, payloads: number): Candidate[] {
  const found: Candidate[] = [];
  for (const leaf of leaves) {
    if (leaf.present === 0) continue;
    const name = nameScore(wanted.concept, leaf.naming);
    if (name < 0 || (name < 2 && !wanted.byValue)) continue;
    // Most leaves of a large payload fit nothing: the counts per shape say so before each value is looked at.
    if (!(name >= 2 ? wanted.shapes : (wanted.valueShapes ?? wanted.shapes)).some((shape) => leaf.shapes.has(shape))) {
      continue;
    }
    if (wanted.person && isSomeoneElse(leaf)) continue;
    // One value in every payload is more likely the form's or the vendor's than each lead's: named so, it is taken
    // last; known by its looks alone, never (the owner may also have sent one test lead several times).
    const constant = wanted.varying === true && payloads >= 2 && leaf.present >= 2 && leaf.distinct === 1;
    if (constant && name < 2) continue;
    const fits = name >= 2 ? wanted.shapes : (wanted.valueShapes ?? wanted.shapes);
    let hits = 0;
    for (const mask of leaf.masks) if (fits.some((shape) => hasShape(mask, shape))) hits++;
    if (name >= 2) {
      if (hits === 0 || hits * 2 < leaf.present) continue;
    } else if (
      !(wanted.byValue && hits === leaf.present && (nameless(leaf, name) || differs(leaf, wanted, payloads)))
    ) {
      continue;
    }
    const confidence: Confidence =
      name >= 2 && hits === payloads ? "certain" : name >= 2 || hits === leaf.present ? "likely" : "guess";
    const score =
      name * 100 +
      (60 * hits) / payloads +
      (20 * leaf.present) / payloads -
      leaf.depth +
      (wanted.prefer?.(leaf) ?? 0) -
      (constant ? 50 : 0);
    found.push({ leaf, name, hits, score, confidence, reason: reasonFor(leaf, name, hits, payloads, wanted) });
  }
  return found.sort((a, b) => b.score - a.score || a.leaf.order - b.leaf.order);
}

/** Inside the part of the payload that is about the business, its staff or the vendor. */
export function isSomeoneElse(leaf: Leaf): boolean {
  return [...leaf.naming.context, ...leaf.naming.own].some((word) => NOT_THE_PERSON.has(word));
}

function reasonFor(leaf: Leaf, name: NameScore, hits: number, payloads: number, wanted: Wanted): string {
  // The shape most values have; between equals the more specific, listed later (a full address over a street line).
  let shape: Shape = wanted.shapes[0] ?? "text";
  for (const s of wanted.shapes) if ((leaf.shapes.get(s) ?? 0) >= (leaf.shapes.get(shape) ?? 0)) shape = s;
  const what = SHAPE_WORDS[shape];
  const named =
    name >= 2
      ? `name \`${leaf.naming.shown}\``
      : name === 1
        ? `name \`${leaf.naming.shown}\` hints at it`
        : `no name says so (\`${leaf.naming.shown}\`), but`;
  const values =
    hits === payloads
      ? `every value is ${what}`
      : hits === leaf.present
        ? `every value given is ${what} (${hits} of ${payloads} payloads have one)`
        : `${hits} of ${leaf.present} values are ${what}`;
  return name >= 1 ? `${named} and ${values}.` : `${named} ${values}.`;
}

/** The least sure of several parts: a field built from parts is as sure as its weakest. */
export function weakest(...levels: readonly Confidence[]): Confidence {
  if (levels.includes("guess")) return "guess";
  return levels.includes("likely") ? "likely" : "certain";
}
