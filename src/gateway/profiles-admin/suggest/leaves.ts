import type { PayloadPath } from "./path.js";
import type { Scalar } from "./scalar.js";
import { hasShape, SHAPES, type Shape, shapeMask } from "./shapes.js";
import type { Naming, Occurrence } from "./walk.js";

/**
 * One place across all the payloads: its value in each (undefined where a payload lacks it), and how many payloads
 * agree on each shape — the agreement a field's confidence rests on (docs/decisions.md, D-311).
 */
export interface Leaf {
  id: string;
  path: PayloadPath;
  naming: Naming;
  group: string;
  order: number;
  depth: number;
  values: readonly (Scalar | undefined)[];
  /** Payloads where it has a value that is not null or blank. */
  present: number;
  /** Payloads whose value has the shape. */
  shapes: ReadonlyMap<Shape, number>;
  /** Each payload's value's shapes, as `shapeMask` bits (none where blank or absent). */
  masks: readonly number[];
  /** Distinct values that are not blank: one value in every payload is the form's, not the person's. */
  distinct: number;
}

export const isBlank = (value: Scalar | undefined): boolean =>
  value === undefined || value === null || (typeof value === "string" && value.trim() === "");

/** The occurrences of every payload (one list each), as leaves; the first occurrence of a place in a payload wins. */
export function mergeLeaves(perPayload: readonly Occurrence[][]): Leaf[] {
  const count = perPayload.length;
  const byId = new Map<string, { first: Occurrence; values: (Scalar | undefined)[] }>();
  perPayload.forEach((occurrences, index) => {
    for (const occurrence of occurrences) {
      let entry = byId.get(occurrence.id);
      if (!entry) {
        entry = { first: occurrence, values: new Array<Scalar | undefined>(count).fill(undefined) };
        byId.set(occurrence.id, entry);
      }
      if (entry.values[index] === undefined) entry.values[index] = occurrence.value;
    }
  });
  const leaves: Leaf[] = [];
  for (const [id, { first, values }] of byId) {
    const shapes = new Map<Shape, number>();
    // One payload: a value is its own only distinct value; a set per leaf would be 10,000 sets for nothing.
    const distinct = count > 1 ? new Set<string>() : undefined;
    let present = 0;
    const masks = values.map((value) => {
      if (isBlank(value)) return 0;
      present++;
      distinct?.add(typeof value === "string" ? value.trim().toLowerCase() : String(value));
      return shapeMask(value as Scalar);
    });
    const all = masks.reduce((a, b) => a | b, 0);
    if (all !== 0) {
      for (const shape of SHAPES) {
        if (!hasShape(all, shape)) continue;
        shapes.set(shape, masks.filter((mask) => hasShape(mask, shape)).length);
      }
    }
    leaves.push({
      id,
      path: first.path,
      naming: first.naming,
      group: first.group,
      order: first.order,
      depth: first.depth,
      values,
      present,
      shapes,
      masks,
      distinct: distinct?.size ?? present,
    });
  }
  return leaves;
}
