import type { Candidate } from "./candidates.js";
import { isBlank } from "./leaves.js";

/**
 * The same field at several places (docs/profiles.md, "Suggested profiles"): the best candidate first, then others
 * only for the payloads where it has no value — each must name the field itself (a fallback by value alone would
 * fill a gap with a look-alike), and at most three are chained.
 */
export function withFallbacks(ranked: readonly Candidate[]): Candidate[] {
  const [best, ...rest] = ranked;
  if (best === undefined) return [];
  const chain = [best];
  const covered = best.leaf.values.map((value) => !isBlank(value));
  for (const candidate of rest) {
    if (chain.length >= 3 || covered.every(Boolean)) break;
    if (candidate.name < 2) continue;
    const fills = candidate.leaf.values.some((value, i) => !covered[i] && !isBlank(value));
    if (!fills) continue;
    chain.push(candidate);
    candidate.leaf.values.forEach((value, i) => {
      if (!isBlank(value)) covered[i] = true;
    });
  }
  return chain;
}
