import { HighlightStyle, StreamLanguage, type StringStream } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";

/**
 * JSONata highlighting: CodeMirror 6 has no JSONata mode, so this is a small stream language of its own — strings,
 * numbers, comments, `$variables` and `$functions()`, keywords (and, or, in, true, false, null, function), operators,
 * regex literals and backtick-quoted names.
 */
interface State {
  inComment: boolean;
  /** Whether a `/` here would start a regex (after an operator or an opening bracket) rather than divide. */
  expectValue: boolean;
}

const KEYWORDS = new Set(["and", "or", "in", "function"]);
const ATOMS = new Set(["true", "false", "null"]);

function token(stream: StringStream, state: State): string | null {
  if (state.inComment) {
    if (stream.skipTo("*/")) {
      stream.pos += 2;
      state.inComment = false;
    } else stream.skipToEnd();
    return "comment";
  }
  if (stream.eatSpace()) return null;
  if (stream.match("/*")) {
    state.inComment = true;
    return token(stream, state) ?? "comment";
  }
  const ch = stream.peek() ?? "";
  if (ch === '"' || ch === "'") {
    stream.next();
    let escaped = false;
    for (let c = stream.next(); c !== undefined; c = stream.next()) {
      if (c === ch && !escaped) break;
      escaped = !escaped && c === "\\";
    }
    state.expectValue = false;
    return "string";
  }
  if (ch === "`") {
    stream.next();
    stream.skipTo("`") ? stream.next() : stream.skipToEnd();
    state.expectValue = false;
    return "propertyName";
  }
  if (ch === "/" && state.expectValue) {
    stream.next();
    let escaped = false;
    for (let c = stream.next(); c !== undefined; c = stream.next()) {
      if (c === "/" && !escaped) break;
      escaped = !escaped && c === "\\";
    }
    stream.match(/^[im]*/);
    state.expectValue = false;
    return "regexp";
  }
  if (stream.match(/^-?\d+(\.\d+)?([eE][+-]?\d+)?/)) {
    state.expectValue = false;
    return "number";
  }
  if (stream.match(/^\$\$?[A-Za-z0-9_]*/)) {
    const isCall = stream.match(/^\s*\(/, false);
    state.expectValue = false;
    return isCall ? "variableName.function" : "variableName";
  }
  const word = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/);
  if (word) {
    const text = (word as RegExpMatchArray)[0];
    if (KEYWORDS.has(text)) {
      state.expectValue = true;
      return "keyword";
    }
    state.expectValue = false;
    if (ATOMS.has(text)) return "atom";
    return "propertyName";
  }
  if (stream.match(/^(:=|!=|<=|>=|~>|\.\.|\?:|\?\?|[-+*/%&=<>!?:.^#@|~])/)) {
    state.expectValue = true;
    return "operator";
  }
  const next = stream.next() ?? "";
  state.expectValue = "([{,;".includes(next);
  return "([{}])".includes(next) ? "bracket" : ",;".includes(next) ? "punctuation" : null;
}

/** Colours for the tokens above (contrast ≥ 4.5:1 on white); the default style leaves variables and calls plain. */
export const jsonataHighlight = HighlightStyle.define([
  { tag: t.keyword, color: "#7a3e9d", fontWeight: "600" },
  { tag: [t.atom, t.bool, t.null], color: "#0b6e99" },
  { tag: t.number, color: "#0b6e99" },
  { tag: t.string, color: "#a31515" },
  { tag: t.regexp, color: "#b3261e" },
  { tag: t.comment, color: "#5f6b7a", fontStyle: "italic" },
  { tag: t.function(t.variableName), color: "#0b4fa8", fontWeight: "600" },
  { tag: t.variableName, color: "#6f42c1" },
  { tag: t.propertyName, color: "#1d2430" },
  { tag: t.operator, color: "#8a4b00" },
  { tag: t.bracket, color: "#444c56" },
]);

export const jsonata = StreamLanguage.define<State>({
  name: "jsonata",
  startState: () => ({ inComment: false, expectValue: true }),
  token,
  languageData: {
    commentTokens: { block: { open: "/*", close: "*/" } },
    closeBrackets: { brackets: ["(", "[", "{", '"'] },
  },
});
