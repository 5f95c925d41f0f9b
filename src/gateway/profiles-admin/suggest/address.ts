import { type Candidate, opaque, rank, weakest } from "./candidates.js";
import { withFallbacks } from "./fallbacks.js";
import type { Leaf } from "./leaves.js";
import { nearest, type Picked, type Reading } from "./reading.js";
import type { Shape } from "./shapes.js";
import { firstOf, shown } from "./writer.js";

/**
 * §2.7 address, the full service address: a joined address as sent, or the street line(s) with the city, state and
 * ZIP beside them. Never without a street line — a city, a state or a ZIP alone is a region, not an address — and the
 * expression keeps that rule for each payload: a payload without the street gets no address (docs/decisions.md,
 * D-312).
 */
export function pickAddress(r: Reading): Picked {
  const streets = rank(
    r.candidates,
    { concept: "street", shapes: ["street", "fullAddress"], person: true, varying: true, byValue: true },
    r.payloads,
  );
  const best = streets[0];
  if (!best) {
    return {
      missed: { field: "address", note: "no street line: a city, state or ZIP alone is not a service address" },
    };
  }
  if (isJoined(best.leaf)) {
    const chain = withFallbacks(streets.filter((c) => isJoined(c.leaf)));
    return {
      mapped: {
        field: "address",
        text: `$joinAddress(${firstOf(chain.map((c) => r.writer.path(c.leaf)))})`,
        sources: chain.map((c) => c.leaf),
        confidence: best.confidence,
        reason: best.reason,
      },
    };
  }
  const street = r.writer.path(best.leaf);
  const part = (concept: "line2" | "city" | "region" | "zip", shapes: Shape[]) =>
    sibling(
      rank(
        r.candidates,
        { concept, shapes, person: true, byValue: concept !== "line2" && concept !== "city" },
        r.payloads,
      ),
      best.leaf,
    );
  const line2 = part("line2", ["text", "street", "id"]);
  let region = part("region", ["region"]);
  let zip = part("zip", ["zip"]);
  const city = part("city", ["text"]) ?? cityBetween(r, best.leaf, region ?? zip);
  // Parts known by their values alone belong to an address only beside a city: a street and a ZIP that happen to
  // sit in the same list of answers are not one address.
  if (!city) {
    if (region && region.name < 2) region = undefined;
    if (zip && zip.name < 2) zip = undefined;
  }
  const lines = line2 ? `[${street}, ${r.writer.path(line2.leaf)}]` : street;
  const others = [city, region, zip].map((c) => (c ? r.writer.path(c.leaf) : "()"));
  while (others.length > 0 && others[others.length - 1] === "()") others.pop();
  const used = [best, line2, city, region, zip].filter((c): c is Candidate => c !== undefined);
  const described = [
    `street \`${shown(best.leaf)}\``,
    ...(line2 ? [`second line \`${shown(line2.leaf)}\``] : []),
    ...(city ? [`city \`${shown(city.leaf)}\``] : []),
    ...(region ? [`state \`${shown(region.leaf)}\``] : []),
    ...(zip ? [`ZIP \`${shown(zip.leaf)}\``] : []),
  ];
  return {
    mapped: {
      field: "address",
      text: `${street} ? $joinAddress(${[lines, ...others].join(", ")}) : ()`,
      sources: used.map((c) => c.leaf),
      confidence: weakest(...used.map((c) => c.confidence)),
      reason: `${best.reason} Joined: ${described.join(", ")}; no address where the street is blank.`,
    },
  };
}

/**
 * A city known by its place alone: in answers named only by ids (`4.1`, `4.3`, `4.4`), the answer between the street
 * and the state (or ZIP) whose every value is a few words of letters.
 */
function cityBetween(r: Reading, street: Leaf, after: Candidate | undefined): Candidate | undefined {
  if (!after || after.leaf.group !== street.group) return undefined;
  const place = /^[\p{L}][\p{L} .'’-]{1,48}$/u;
  for (const leaf of r.leaves) {
    if (leaf.group !== street.group || leaf.order <= street.order || leaf.order >= after.leaf.order) continue;
    if (!opaque([...leaf.naming.own, ...leaf.naming.label]) || leaf.present === 0) continue;
    if (!leaf.values.every((v) => v === undefined || v === null || (typeof v === "string" && place.test(v.trim()))))
      continue;
    return {
      leaf,
      name: 0,
      hits: leaf.present,
      score: 0,
      confidence: "guess",
      reason: `\`${leaf.naming.shown}\` sits between the street and the state, and every value is a place's name.`,
    };
  }
  return undefined;
}

/** Every value given is a whole address on one line. */
function isJoined(leaf: Leaf): boolean {
  return (leaf.shapes.get("fullAddress") ?? 0) === leaf.present;
}

/**
 * A part of the same address: in the street's own object or list, or else in one around it or inside it — never from
 * an unrelated part of the payload (a billing or an office address).
 */
function sibling(candidates: readonly Candidate[], street: Leaf): Candidate | undefined {
  const found = nearest(candidates, street);
  if (!found) return undefined;
  const a = found.leaf.group;
  const b = street.group;
  return a === b || a.startsWith(b) || b.startsWith(a) ? found : undefined;
}
