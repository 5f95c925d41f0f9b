/**
 * How deeply a JSON body may nest arrays and objects inside one another. A vendor's payload nests a handful of levels;
 * 64 is far past any real one, and far short of where a recursive walk over the parsed value (JSON.stringify, zod, a
 * mapping, a diff) would run out of stack (docs/decisions.md, "Bounded input").
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether JSON text (as received, UTF-8) nests arrays and objects deeper than `maxDepth`: one pass over the bytes, the
 * strings skipped with `indexOf`, before anything parses it. Text that is not JSON gives an answer of no meaning, and
 * the parser refuses it anyway.
 */
export function nestsDeeper(raw: Uint8Array, maxDepth: number): boolean {
  // Deeper than maxDepth takes more than maxDepth opening brackets.
  if (raw.length <= maxDepth) return false;
  let depth = 0;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (byte === QUOTE) {
      i = stringEnd(raw, i);
      if (i < 0) return false;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** The index of the quote closing the string opened at `open`, or -1 when it is not closed. */
function stringEnd(raw: Uint8Array, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = raw.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (raw[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** nestsDeeper() for JSON already held as a string (an evaluator's output, a stored payload). */
export function textNestsDeeper(text: string, maxDepth: number): boolean {
  if (text.length <= maxDepth) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      let end = text.indexOf('"', i + 1);
      while (end > 0 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) return false;
      i = end;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

function escaped(text: string, quote: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}
