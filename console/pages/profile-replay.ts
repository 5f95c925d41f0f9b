import { api, failureText } from "../api.js";
import { field, h, json, mount, notice, select } from "../dom.js";
import type { VendorKey } from "../types.js";

/** Replays a key's last N real payloads through the draft and shows what would change, field by field. */
export function replaySection(options: { kind: "lead" | "appointment"; keys: VendorKey[]; expression: () => string }) {
  const key = select(
    "replayKey",
    options.keys.map((k) => [k.id, k.name]),
  );
  const limit = h("input", { type: "number", name: "replayLimit", min: "1", max: "500", value: "20" });
  const out = h("div", { "aria-live": "polite" });
  return h(
    "section",
    { class: "card", "aria-labelledby": "replay-h" },
    h("h2", { id: "replay-h" }, "Replay the last payloads"),
    h("p", { class: "muted" }, "What would change for a key's recent submissions if this draft were bound to it."),
    h(
      "div",
      { class: "row" },
      field("Key", key),
      field("How many", limit),
      h(
        "button",
        {
          type: "button",
          onclick: async () => {
            mount(out, h("p", { role: "status" }, "Replaying…"));
            try {
              const r = await api.post("/profiles/replay", {
                body: {
                  keyId: key.value,
                  kind: options.kind,
                  expression: options.expression(),
                  limit: Number(limit.value) || 20,
                },
              });
              const changed = r.results.filter((x) => !x.outcome.ok || x.changes.length);
              mount(
                out,
                h("p", null, `${r.replayed} replayed, ${r.changed} would change.`),
                changed.length
                  ? h(
                      "div",
                      { class: "table-wrap" },
                      h(
                        "table",
                        null,
                        h(
                          "thead",
                          null,
                          h(
                            "tr",
                            null,
                            ["Submission", "Field", "Before", "After"].map((t) => h("th", { scope: "col" }, t)),
                          ),
                        ),
                        h(
                          "tbody",
                          null,
                          changed.flatMap((x) =>
                            x.outcome.ok
                              ? x.changes.map((c) =>
                                  h(
                                    "tr",
                                    null,
                                    h("td", null, x.submissionId),
                                    h("td", null, c.field),
                                    h("td", null, h("code", null, json(c.before))),
                                    h("td", null, h("code", null, json(c.after))),
                                  ),
                                )
                              : [
                                  h(
                                    "tr",
                                    null,
                                    h("td", null, x.submissionId),
                                    h("td", { colspan: "3" }, `fails: ${x.outcome.message ?? ""}`),
                                  ),
                                ],
                          ),
                        ),
                      ),
                    )
                  : null,
              );
            } catch (error) {
              mount(out, notice("error", failureText(error)));
            }
          },
        },
        "Replay",
      ),
    ),
    out,
  );
}
