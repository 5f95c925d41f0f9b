import { badge, h } from "../dom.js";
import type { GoldenReport, Outcome, Sample } from "../types.js";

/** What a new golden sample expects: the body the output pane shows now, or the error it shows. */
export function expectationOf(outcome: Outcome | null): Sample["expect"] {
  if (outcome?.ok) return "records" in outcome ? { records: outcome.records } : { body: outcome.body };
  if (outcome?.kind === "validation") return { error: { field: outcome.field, kind: "validation" } };
  return { error: {} };
}

/** The golden samples with their last verdict (from the owner API's run of the draft). */
export function samplesView(options: {
  samples: Sample[];
  report: GoldenReport | null;
  admin: boolean;
  onUse: (sample: Sample) => void;
  onRemove: (index: number) => void;
}): HTMLElement[] {
  const { samples, report } = options;
  const summary = !samples.length
    ? "No golden samples: a profile needs one to be published."
    : report
      ? `${report.total - report.failed} of ${report.total} pass`
      : "";
  const rows = samples.map((s, i) => {
    const result = report?.results[i];
    const expects =
      "body" in s.expect
        ? "this body"
        : "records" in s.expect
          ? `${s.expect.records.length} record${s.expect.records.length === 1 ? "" : "s"}`
          : `an error${s.expect.error.field ? ` on ${s.expect.error.field}` : ""}`;
    return h(
      "tr",
      null,
      h("td", null, s.name),
      h("td", null, expects),
      h(
        "td",
        null,
        result ? badge(result.passed ? "pass" : "fail") : badge("not run"),
        result?.reason ? h("div", { class: "muted" }, result.reason) : null,
      ),
      h(
        "td",
        null,
        h("button", { type: "button", class: "link", onclick: () => options.onUse(s) }, "Use payload"),
        options.admin
          ? h(
              "button",
              {
                type: "button",
                class: "link danger",
                "aria-label": `Remove sample ${s.name}`,
                onclick: () => options.onRemove(i),
              },
              "Remove",
            )
          : null,
      ),
    );
  });
  const head = h(
    "thead",
    null,
    h(
      "tr",
      null,
      ["Sample", "Expects", "Result", ""].map((t) => h("th", { scope: "col" }, t)),
    ),
  );
  return [
    h("p", { class: report && !report.passed ? "samples-failing" : "muted" }, summary),
    ...(samples.length ? [h("div", { class: "table-wrap" }, h("table", null, head, h("tbody", null, rows)))] : []),
  ];
}
