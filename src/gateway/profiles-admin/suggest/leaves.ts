import type { PayloadPath } from "./path.js";
import { type Scalar, type Shape, shapesOf } from "./shapes.js";
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
  /** Each payload's value's shapes (empty where blank or absent). */
  valueShapes: readonly ReadonlySet<Shape>[];
  /** Distinct values that are not blank: one value in every payload is the form's, not the person's. */
  distinct: number;
}

const NO_SHAPES: ReadonlySet<Shape> = new Set();

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
    const distinct = new Set<string>();
    let present = 0;
    const valueShapes = values.map((value) => {
      if (isBlank(value)) return NO_SHAPES;
      present++;
      distinct.add(typeof value === "string" ? value.trim().toLowerCase() : String(value));
      const found = shapesOf(value as Scalar);
      for (const shape of found) shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
      return found;
    });
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
      valueShapes,
      distinct: distinct.size,
    });
  }
  return leaves;
}
