import { wordSet } from "./word-set.js";

/**
 * Names of fields and labels of answers turned into lower-case words, whatever the vendor's convention: camelCase,
 * PascalCase, snake_case, kebab-case, dotted, spaced question text, XML's `@attr` and `#text`, digits apart
 * (`address1` → address 1). Words run together (`emailaddress`, `zipcode`, `firstname`) are split when both halves are
 * words the suggester knows, so `EMAILADDRESS` and `email_address` read the same (docs/profiles.md, "Suggested
 * profiles").
 */

/** Words the concepts are written in; a run-together name splits only into these. */
const KNOWN = wordSet(`
  email mail address addr phone number tel mobile cell home work day evening first last full given family middle sur
  name names fore display contact street line city town state province region zip postal post code country start end
  time date zone stamp slot sms text opt in consent ok id uid booking appointment lead customer client user service
  notes note comments duration primary secondary office business company created updated submitted at on ts message
  messages reminder reminders ref key type value values answer question visit job request reservation order ticket
  submission entry response event organizer owner agent rep
`);

const cache = new Map<string, string[]>();
const CACHE_LIMIT = 50_000;

/** The words of a field name or an answer's label (at most the first 300 characters of it). */
export function tokenize(name: string): string[] {
  const known = cache.get(name);
  if (known) return known;
  const words: string[] = [];
  const spaced = name
    .slice(0, 300)
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([A-Za-z])([0-9])/g, "$1 $2")
    .replace(/([0-9])([A-Za-z])/g, "$1 $2")
    .toLowerCase();
  for (const raw of spaced.split(/[^\p{L}\p{N}]+/u)) {
    if (raw === "") continue;
    words.push(...splitRunTogether(raw));
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(name, words);
  return words;
}

/** `emailaddress` → email address; `zipcode` → zip code; a word it cannot split stays whole. */
function splitRunTogether(word: string): string[] {
  if (word.length < 5 || KNOWN.has(word)) return [word];
  for (let cut = 2; cut <= word.length - 2; cut++) {
    const head = word.slice(0, cut);
    const tail = word.slice(cut);
    if (KNOWN.has(head) && KNOWN.has(tail)) return [head, tail];
    if (KNOWN.has(head) && tail.length >= 5) {
      const rest = splitRunTogether(tail);
      if (rest.length > 1) return [head, ...rest];
    }
  }
  return [word];
}
