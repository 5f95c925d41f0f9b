import type { Candidate } from "./candidates.js";
import type { Leaf } from "./leaves.js";
import { firstOf, type Mapped, type Missed, type PathWriter, shown } from "./writer.js";

/** What the pickers read: the leaves (of every payload), how many payloads, how to write a path. */
export interface Reading {
  /** Every leaf the expression may read. */
  leaves: readonly Leaf[];
  /** Those worth ranking (candidates.ts, mayMatter). */
  candidates: readonly Leaf[];
  payloads: number;
  writer: PathWriter;
}

export type Picked = { mapped: Mapped } | { missed: Missed };

export const chainReason = (chain: readonly Candidate[]): string => {
  const [best, ...rest] = chain;
  if (!best) return "";
  if (rest.length === 0) return best.reason;
  return `${best.reason} Where it is blank: ${rest.map((c) => `\`${shown(c.leaf)}\``).join(", then ")}.`;
};

export function mappedChain(
  field: string,
  chain: readonly Candidate[],
  wrap: (path: string) => string,
  r: Reading,
): Mapped {
  const [best] = chain;
  return {
    field,
    text: wrap(firstOf(chain.map((c) => r.writer.path(c.leaf)))),
    sources: chain.map((c) => c.leaf),
    confidence: best?.confidence ?? "guess",
    reason: chainReason(chain),
  };
}

/** The candidate in the same object or list as `leaf`, else the closest by path. */
export function nearest(candidates: readonly Candidate[], leaf: Leaf): Candidate | undefined {
  const same = candidates.find((c) => c.leaf.group === leaf.group);
  if (same) return same;
  return [...candidates].sort(
    (a, b) => sharedPrefix(b.leaf.group, leaf.group) - sharedPrefix(a.leaf.group, leaf.group),
  )[0];
}

function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
