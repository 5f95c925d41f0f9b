import { tidy } from "./text.js";

/** `$joinName(first, last, …)`: the non-blank parts, trimmed, joined by one space; undefined when all are blank. */
export function joinName(...parts: unknown[]): string | undefined {
  let joined: string | undefined;
  for (const part of parts) {
    for (const word of Array.isArray(part) ? part : [part]) {
      const tidied = tidy(word);
      if (tidied !== undefined) joined = joined === undefined ? tidied : `${joined} ${tidied}`;
    }
  }
  return joined;
}

const SUFFIXES = new Set([
  "jr",
  "jr.",
  "sr",
  "sr.",
  "ii",
  "iii",
  "iv",
  "v",
  "phd",
  "ph.d.",
  "md",
  "m.d.",
  "esq",
  "esq.",
]);
const PARTICLES = new Set([
  "van",
  "von",
  "der",
  "den",
  "de",
  "da",
  "del",
  "della",
  "di",
  "du",
  "la",
  "le",
  "st.",
  "bin",
]);

export interface SplitName {
  first?: string;
  last?: string;
}

/**
 * `$splitName(full)` → `{first, last}`. "Last, First" is understood by its comma; otherwise the last word is the
 * last name, kept together with a generational suffix ("King Jr.") and lower-case particles ("van Beethoven"). One
 * word gives only `first`. Names are not uniformly splittable; this is the common Western convention, for vendors
 * whose fields demand two parts.
 */
export function splitName(value: unknown): SplitName | undefined {
  const full = tidy(value);
  if (full === undefined) return undefined;
  const comma = full.indexOf(",");
  if (comma > 0) {
    const before = full.slice(0, comma).trim();
    const after = full.slice(comma + 1).trim();
    if (after !== "" && !SUFFIXES.has(after.toLowerCase())) return parts(after, before);
  }
  const words = full.replace(",", "").split(" ");
  if (words.length === 1) return parts(words[0], undefined);
  let start = words.length - 1;
  const lastWord = words[start];
  if (lastWord !== undefined && SUFFIXES.has(lastWord.toLowerCase()) && start > 1) start--;
  while (start > 1 && PARTICLES.has(words[start - 1] ?? "")) start--;
  return parts(words.slice(0, start).join(" "), words.slice(start).join(" "));
}

function parts(first: string | undefined, last: string | undefined): SplitName {
  const result: SplitName = {};
  if (first) result.first = first;
  if (last) result.last = last;
  return result;
}
