import { h, json } from "../dom.js";
import type { Outcome } from "../types.js";

/**
 * The live output pane: the canonical body field by field, with a validation error pinned to the field it names
 * (and the vendor field it came from), or the mapping / compile error, and the evaluation time.
 */
export function outputView(
  outcome: Outcome | { ok: false; kind: "payload" | "request"; message: string },
): HTMLElement {
  const elapsed =
    "elapsedMs" in outcome
      ? h("span", { class: "muted elapsed" }, `evaluated in ${outcome.elapsedMs.toFixed(1)} ms`)
      : null;
  if (outcome.ok && "records" in outcome) {
    // A hook connection's profile: its records in order, each with its kind and the vendor's id (D-300).
    return h(
      "div",
      { class: "output ok" },
      h(
        "p",
        { class: "output-status" },
        h("span", { class: "badge badge-passing" }, "valid"),
        ` ${outcome.records.length} record${outcome.records.length === 1 ? "" : "s"} `,
        elapsed,
      ),
      ...outcome.records.flatMap((record, index) => [
        h(
          "h4",
          null,
          `${index + 1}. ${record.kind}${record.id ? ` ${record.id}` : ""}${record.action && record.action !== "create" ? ` (${record.action})` : ""}${record.test ? " (test)" : ""}`,
        ),
        fieldTable(record.body, null),
      ]),
    );
  }
  if (outcome.ok) {
    return h(
      "div",
      { class: "output ok" },
      h(
        "p",
        { class: "output-status" },
        h("span", { class: "badge badge-passing" }, "valid"),
        " canonical body ",
        elapsed,
      ),
      fieldTable(outcome.body, null),
    );
  }
  if (outcome.kind === "validation") {
    return h(
      "div",
      { class: "output invalid" },
      h(
        "p",
        { class: "output-status", role: "status" },
        h("span", { class: "badge badge-failing" }, "invalid"),
        ` ${outcome.field || "body"}: ${outcome.message}`,
        outcome.sourcePath ? ` (from the vendor's ${outcome.sourcePath})` : "",
        " ",
        elapsed,
      ),
      fieldTable(outcome.output, outcome),
    );
  }
  const labels: Record<string, string> = { compile: "does not compile", payload: "payload", request: "refused" };
  const label = labels[outcome.kind] ?? outcome.kind;
  return h(
    "div",
    { class: "output error" },
    h(
      "p",
      { class: "output-status", role: "status" },
      h("span", { class: "badge badge-failing" }, label),
      ` ${outcome.message} `,
      elapsed,
    ),
  );
}

function fieldTable(body: unknown, error: { field: string; message: string; sourcePath?: string } | null): HTMLElement {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return h("pre", null, json(body));
  const record = body as Record<string, unknown>;
  const top = error?.field.split(".")[0] ?? "";
  const fields = Object.keys(record);
  if (error && top && !fields.includes(top)) fields.push(top);
  return h(
    "table",
    { class: "fields" },
    h("caption", { class: "sr-only" }, "Canonical body"),
    h(
      "tbody",
      null,
      fields.map((name) => {
        const bad = error !== null && name === top;
        return h(
          "tr",
          { class: bad ? "field-error" : null, "aria-invalid": bad ? "true" : null },
          h("th", { scope: "row" }, name),
          h(
            "td",
            null,
            h("code", null, name in record ? json(record[name]) : "missing"),
            bad && error ? h("div", { class: "pinned-error" }, `${error.field}: ${error.message}`) : null,
          ),
        );
      }),
    ),
  );
}
