import { HookBodyError, malformed, tooDeep, tooManyFields } from "./hook-body-error.js";
import type { HookBodyLimits } from "./limits.js";
import { isUtf8 } from "./media-type.js";

const PREDEFINED = new Set(["amp", "lt", "gt", "quot", "apos"]);
// A character or entity reference; the name part takes anything up to ";" so that any named one is recognised.
const REFERENCE = /&(?:#x([0-9A-Fa-f]{1,16})|#([0-9]{1,20})|([^\s&;<>"'#][^\s&;<>"']*));/y;
const ENCODING = /^<\?xml\s[^?>]*?\bencoding\s*=\s*["']([^"']*)["']/;

/**
 * One pass over an XML body before any parser sees it (D-282): a DOCTYPE or any other markup declaration, and an
 * entity reference other than XML's five predefined ones, are refused — so no DTD is read, no external entity fetched
 * and nothing expanded. A character reference must name a character XML allows; a bare "&" is malformed. The same
 * pass counts elements and attributes and measures the elements' nesting, so an oversized document is refused before
 * the parser builds anything (the elements' nesting never exceeds the tree's), and finds a second root element. The
 * rest of well-formedness is the validator's. Comments, CDATA sections and processing instructions are skipped whole:
 * what they hold is not markup.
 */
export function prescanXml(text: string, limits: HookBodyLimits): void {
  const encoding = ENCODING.exec(text)?.[1];
  if (encoding !== undefined && !isUtf8(encoding)) {
    throw new HookBodyError("unsupported_charset", `XML encoding ${encoding} is not taken: send UTF-8`, {
      details: { charset: encoding },
    });
  }
  const markup = /[<&]/g;
  let depth = 0;
  let fields = 0;
  let roots = 0;
  let textFrom = 0;
  for (let match = markup.exec(text); match; match = markup.exec(text)) {
    const at = match.index;
    // The validator lets text after the root through (<a/>x), and the parser drops it.
    if (depth === 0 && (text[at] === "&" || /\S/.test(text.slice(textFrom, at)))) throw outsideRoot();
    if (text[at] === "&") {
      markup.lastIndex = reference(text, at);
    } else if (text.startsWith("<!--", at)) {
      markup.lastIndex = skipPast(text, at + 4, "-->", "a comment");
    } else if (text.startsWith("<![CDATA[", at)) {
      markup.lastIndex = skipPast(text, at + 9, "]]>", "a CDATA section");
    } else if (text.startsWith("<?", at)) {
      markup.lastIndex = skipPast(text, at + 2, "?>", "a processing instruction");
    } else if (text.startsWith("<!", at)) {
      // <!DOCTYPE, <!ENTITY, <!ELEMENT, <!ATTLIST, <!NOTATION: a letter; anything else after "<!" is no XML at all.
      if (/[A-Za-z]/.test(text[at + 2] ?? "")) {
        throw new HookBodyError("xml_dtd_refused", "an XML body may not carry a DOCTYPE or any markup declaration");
      }
      throw malformed('the XML body has a "<!" that begins no comment or CDATA section');
    } else if (text.startsWith("</", at)) {
      depth--;
      markup.lastIndex = skipPast(text, at + 2, ">", "a tag");
    } else {
      // The validator lets a second root through when the first is empty (<a/><b/>).
      if (depth === 0 && roots++ > 0) throw malformed("the XML body has more than one root element");
      const tag = startTag(text, at);
      fields += 1 + tag.attributes;
      if (fields > limits.maxFields) throw tooManyFields(limits.maxFields);
      if (!tag.empty && ++depth > limits.maxDepth) throw tooDeep(limits.maxDepth);
      markup.lastIndex = tag.end;
    }
    textFrom = markup.lastIndex;
  }
  if (depth === 0 && /\S/.test(text.slice(textFrom))) throw outsideRoot();
}

const outsideRoot = () => malformed("the XML body has text outside its root element");

/** A start tag from its "<": where it ends, how many attributes it has, and whether it is empty (`<a/>`). */
function startTag(text: string, open: number): { end: number; attributes: number; empty: boolean } {
  let quote = "";
  let attributes = 0;
  for (let i = open + 1; i < text.length; i++) {
    const char = text[i];
    if (quote) {
      if (char === quote) quote = "";
      else if (char === "&") i = reference(text, i) - 1;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === "=") {
      attributes++;
    } else if (char === ">") {
      return { end: i + 1, attributes, empty: text[i - 1] === "/" };
    }
  }
  throw malformed("the XML body ends inside a tag");
}

/** Checks the reference at `at` and returns the index just past it. */
function reference(text: string, at: number): number {
  REFERENCE.lastIndex = at;
  const match = REFERENCE.exec(text);
  if (!match) throw malformed('the XML body has an "&" that begins no reference (write &amp;)');
  const [, hex, decimal, name] = match;
  if (name !== undefined && !PREDEFINED.has(name)) {
    throw new HookBodyError("xml_dtd_refused", `an XML body may use no entity but XML's five (&${name.slice(0, 50)};)`);
  }
  const code = hex !== undefined ? Number.parseInt(hex, 16) : Number(decimal);
  if (name === undefined && !xmlChar(code)) throw malformed(`the XML body refers to a character XML does not allow`);
  return REFERENCE.lastIndex;
}

/** XML 1.0 §2.2, Char. */
export function xmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/** The index just past the first `end` from `from` (the opener's end). */
function skipPast(text: string, from: number, end: string, what: string): number {
  const close = text.indexOf(end, from);
  if (close < 0) throw malformed(`the XML body ends inside ${what}`);
  return close + end.length;
}
