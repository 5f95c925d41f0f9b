import { describe, expect, it } from "vitest";
import { lineDiff } from "../../console/line-diff.js";

describe("version diff in the profile editor", () => {
  it("keeps common lines and shows a changed line as removed, then added", () => {
    expect(lineDiff("{\n  a: x,\n  b: y\n}", "{\n  a: z,\n  b: y\n}")).toEqual([
      { op: " ", line: "{" },
      { op: "-", line: "  a: x," },
      { op: "+", line: "  a: z," },
      { op: " ", line: "  b: y" },
      { op: " ", line: "}" },
    ]);
  });

  it("shows lines added at the end and removed at the start", () => {
    expect(lineDiff("a\nb", "b\nc").map((d) => `${d.op}${d.line}`)).toEqual(["-a", " b", "+c"]);
    expect(lineDiff("same", "same")).toEqual([{ op: " ", line: "same" }]);
  });
});
