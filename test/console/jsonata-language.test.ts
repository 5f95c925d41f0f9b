import { describe, expect, it } from "vitest";
import { jsonata } from "../../console/editor/jsonata-language.js";

/** The editor's JSONata highlighting (a stream language of our own: CodeMirror 6 has no JSONata mode). */
function tokens(text: string): string[] {
  const out: string[] = [];
  jsonata.parser.parse(text).iterate({
    enter: (node) => {
      if (node.name !== "Document" && node.from < node.to) out.push(`${node.name} ${text.slice(node.from, node.to)}`);
    },
  });
  return out;
}

describe("JSONata highlighting", () => {
  it("tells variables, calls, names, strings, numbers, keywords and comments apart", () => {
    expect(tokens('( /* why */ $m := $trim(name); {"a": x.y[0], "t": true and 1.5} )')).toEqual([
      "bracket (",
      "comment /* why */",
      "variableName $m",
      "operator :=",
      "variableName.function $trim",
      "bracket (",
      "propertyName name",
      "bracket )",
      "punctuation ;",
      "bracket {",
      'string "a"',
      "operator :",
      "propertyName x",
      "operator .",
      "propertyName y",
      "bracket [",
      "number 0",
      "bracket ]",
      "punctuation ,",
      'string "t"',
      "operator :",
      "atom true",
      "keyword and",
      "number 1.5",
      "bracket }",
      "bracket )",
    ]);
  });

  it("reads a slash after a value as division and after an operator as a regex", () => {
    expect(tokens("a / 2")).toContain("operator /");
    expect(tokens("$match(s, /ab+c/i)")).toContain("regexp /ab+c/i");
  });

  it("keeps a comment open across lines and a backtick name whole", () => {
    expect(tokens("/* one\ntwo */ `first name`")).toEqual([
      "comment /* one",
      "comment two */",
      "propertyName `first name`",
    ]);
  });
});
