import { api, failureText } from "../api.js";
import { confirmDialog } from "../confirm.js";
import { badge, field, h, json, mount, notice, select, time } from "../dom.js";
import { lineDiff } from "../line-diff.js";
import { isAdmin } from "../session.js";
import type { Profile, VendorKey, Version } from "../types.js";

/** Version history: open a version, diff two, roll every bound key back (or forward) to a published one. */
export function historySection(options: { profile: Profile; keys: VendorKey[]; onOpen: (v: Version) => void }) {
  const { profile } = options;
  const list = h("div");
  const diffBox = h("div", { "aria-live": "polite" });
  const status = h("div", { "aria-live": "polite" });
  let keys = options.keys;
  let versions: Version[] = [];
  const element = h(
    "section",
    { class: "card", "aria-labelledby": "history-h" },
    h("h2", { id: "history-h" }, "Version history"),
    status,
    list,
    diffBox,
  );
  const boundTo = (v: Version) =>
    keys.filter((k) => k.leadProfileVersionId === v.id || k.appointmentProfileVersionId === v.id).map((k) => k.name);

  function render(): void {
    if (!versions.length) {
      mount(list, h("p", { class: "muted" }, "No saved version yet."));
      return;
    }
    const options2: [string, string][] = versions.map((v) => [v.id, `v${v.version} (${v.status})`]);
    const from = select("diffFrom", options2, versions[1]?.id ?? versions[0]?.id);
    const to = select("diffTo", options2, versions[0]?.id);
    const showDiff = () => {
      const a = versions.find((v) => v.id === from.value);
      const b = versions.find((v) => v.id === to.value);
      if (!a || !b) return;
      const lines = lineDiff(a.expression, b.expression);
      const samples =
        json(a.samples.map((s) => s.name)) === json(b.samples.map((s) => s.name))
          ? ""
          : ` · samples: ${a.samples.length} → ${b.samples.length}`;
      mount(
        diffBox,
        h("h3", null, `v${a.version} → v${b.version}${samples}`),
        h(
          "pre",
          { class: "diff" },
          lines.map((l) =>
            h("span", { class: l.op === "+" ? "add" : l.op === "-" ? "del" : "same" }, `${l.op} ${l.line}\n`),
          ),
        ),
      );
    };
    mount(
      list,
      h(
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
              ["Version", "Status", "Samples", "Created", "Bound to", ""].map((t) => h("th", { scope: "col" }, t)),
            ),
          ),
          h(
            "tbody",
            null,
            versions.map((v) =>
              h(
                "tr",
                null,
                h("td", null, `v${v.version}`),
                h("td", null, badge(v.status)),
                h("td", null, v.samples.length ? badge(v.samplesPassed ? "passing" : "failing") : badge("untested")),
                h("td", null, time(v.createdAt)),
                h("td", null, boundTo(v).join(", ") || h("span", { class: "muted" }, "—")),
                h(
                  "td",
                  null,
                  h("button", { type: "button", class: "link", onclick: () => options.onOpen(v) }, "Open in editor"),
                  isAdmin() && v.status === "published" && profile.kind !== "outbound"
                    ? h(
                        "button",
                        { type: "button", class: "link", onclick: () => void rollback(v) },
                        `Roll back to v${v.version}`,
                      )
                    : null,
                ),
              ),
            ),
          ),
        ),
      ),
      h(
        "div",
        { class: "row" },
        field("Diff from", from),
        field("to", to),
        h("button", { type: "button", onclick: showDiff }, "Show diff"),
      ),
    );
  }

  async function rollback(v: Version): Promise<void> {
    if (
      !(await confirmDialog(
        `Bind every key of ${profile.name} to v${v.version}? New submissions map with it at once.`,
        `Roll back to v${v.version}`,
      ))
    )
      return;
    try {
      const result = await api.post("/profiles/{profileId}/rollback", {
        params: { profileId: profile.id },
        body: { versionId: v.id },
      });
      mount(status, notice("ok", `v${v.version} is bound to ${result.reboundKeys.length} key(s).`));
      await reload();
    } catch (error) {
      mount(status, notice("error", failureText(error)));
    }
  }

  async function reload(): Promise<void> {
    const [v, k] = await Promise.all([
      api.get("/profiles/{profileId}/versions", { params: { profileId: profile.id } }),
      api.get("/keys"),
    ]);
    versions = v.versions;
    keys = k.keys;
    render();
  }
  return { element, reload };
}
